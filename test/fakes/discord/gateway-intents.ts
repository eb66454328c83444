import type { APIMessage } from 'discord.js';
import type { DispatchBuilder } from './gateway-server.ts';

/** Gateway intent bits the fake honours. */
export const intents = {
  guilds: 1 << 0,
  guildMessages: 1 << 9,
  directMessages: 1 << 12,
  messageContent: 1 << 15,
} as const;

/** Where a message event happened and who it concerns, which decides who may see what. */
export interface MessageAudience {
  isDirectMessage: boolean;
  /** The bot is mentioned, or wrote the message: such messages keep their content without the intent. */
  concernsBot: boolean;
}

/**
 * events/gateway.mdx, "Gateway Intents" and "Message Content Intent".
 * Builds a MESSAGE_CREATE/MESSAGE_UPDATE for a session the way Discord filters it: guild messages need
 * GUILD_MESSAGES, DMs need DIRECT_MESSAGES, and without the privileged MESSAGE_CONTENT intent the
 * content, embeds, attachments and components are empty unless the message is a DM or concerns the bot,
 * and so are those of a forward's snapshot.
 */
export function messageDispatch(
  message: Record<string, unknown> & APIMessage,
  audience: MessageAudience,
): DispatchBuilder {
  return (sessionIntents) => {
    const needed = audience.isDirectMessage ? intents.directMessages : intents.guildMessages;
    if ((sessionIntents & needed) === 0) {
      return undefined;
    }
    if ((sessionIntents & intents.messageContent) !== 0 || audience.isDirectMessage || audience.concernsBot) {
      return message;
    }
    return {
      ...message,
      content: '',
      embeds: [],
      attachments: [],
      components: [],
      // A forward's snapshot is the forwarded message's content: it is emptied the same way.
      ...(message.message_snapshots === undefined
        ? {}
        : {
            message_snapshots: message.message_snapshots.map((snapshot) => ({
              message: { ...snapshot.message, content: '', embeds: [], attachments: [], components: [] },
            })),
          }),
    };
  };
}

/** Builds a dispatch that needs the GUILDS intent, such as CHANNEL_CREATE. */
export function guildsDispatch(data: unknown): DispatchBuilder {
  return (sessionIntents) => ((sessionIntents & intents.guilds) === 0 ? undefined : data);
}
