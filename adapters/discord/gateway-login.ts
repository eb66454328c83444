import { type Client, Events, GatewayCloseCodes, GatewayIntentBits } from 'discord.js';

/**
 * What parley asks the gateway for. Message Content is privileged: without it guild messages arrive
 * with empty content unless they mention the bot (events/gateway.mdx, "Message Content Intent").
 */
export function gatewayIntents({ canReadMessageContent }: { canReadMessageContent: boolean }): number[] {
  return [
    GatewayIntentBits.Guilds,
    GatewayIntentBits.GuildMessages,
    GatewayIntentBits.DirectMessages,
    ...(canReadMessageContent ? [GatewayIntentBits.MessageContent] : []),
  ];
}

/** How to turn the intent on, said once in the log and in /help while it is off. */
export const messageContentIntentNotice =
  'The Message Content intent is off for this bot, so I read only messages that mention me (replies to me included), DMs and commands. To let me follow threads and reply-all channels, turn on Developer Portal → your application → Bot → Privileged Gateway Intents → Message Content Intent, then restart me.';

/**
 * Logs a client in and waits until it is ready. A gateway closing with 4014 ("Disallowed
 * intent(s)": a privileged intent the application has not enabled) is reported rather than thrown,
 * so the caller can come up without that intent; discord.js has already destroyed the client then.
 */
export async function logIn({
  client,
  token,
}: {
  client: Client;
  token: string;
}): Promise<'ready' | 'intents-disallowed'> {
  let closeCode: number | undefined;
  const onDisconnect = (event: { code: number }) => {
    closeCode = event.code;
  };
  client.on(Events.ShardDisconnect, onDisconnect);
  const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
  try {
    await client.login(token);
  } catch (error) {
    if (closeCode === GatewayCloseCodes.DisallowedIntents) return 'intents-disallowed';
    throw error;
  } finally {
    client.off(Events.ShardDisconnect, onDisconnect);
  }
  await ready;
  return 'ready';
}
