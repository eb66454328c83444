import type { ChatInputCommandInteraction, Client } from 'discord.js';
import type { FakeDiscord } from '../fakes/discord/index.ts';
import type { FakeMessage } from '../fakes/discord/message-store.ts';

/** The labels of the buttons under a message, in order. */
export function buttonLabelsOf(message: FakeMessage): string[] {
  return message.components.flatMap((row) =>
    'components' in row
      ? row.components.flatMap((component) =>
          'label' in component && typeof component.label === 'string' ? [component.label] : [],
        )
      : [],
  );
}

/**
 * Runs a slash command in a new channel of the fake and hands back the interaction as the real
 * discord.js client received it, not yet deferred (the test defers it as parley would).
 */
export async function receiveSlashCommand({
  fake,
  client,
  name,
  options = {},
}: {
  fake: FakeDiscord;
  client: Client<true>;
  name: string;
  options?: Parameters<FakeDiscord['sendSlashCommand']>[0]['options'];
}): Promise<{ channelId: string; interaction: ChatInputCommandInteraction; interactionId: string }> {
  const channelId = fake.createTextChannel({ name: `${name}-${Math.random().toString(36).slice(2, 8)}` });
  await fake.waitFor(() => client.channels.cache.get(channelId));
  const arrived = new Promise<ChatInputCommandInteraction>((resolve) => {
    const onInteraction = (interaction: unknown) => {
      const command = interaction as ChatInputCommandInteraction;
      if (!command.isChatInputCommand?.() || command.channelId !== channelId) return;
      client.off('interactionCreate', onInteraction);
      resolve(command);
    };
    client.on('interactionCreate', onInteraction);
  });
  const interactionId = fake.sendSlashCommand({ name, channelId, options });
  return { channelId, interaction: await arrived, interactionId };
}
