import type { ChatInputCommandInteraction, Client, TextChannel } from 'discord.js';
import { afterAll, beforeAll } from 'vitest';
import { createChannelSurface } from '../../adapters/discord/channel-surface.ts';
import { createDiscordOutbound } from '../../adapters/discord/discord-outbound.ts';
import { createInteractionResponder } from '../../adapters/discord/interaction-responder.ts';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord/index.ts';
import { connectClient } from '../fakes-discord/discord-client.ts';
import { createCapturedLogger } from '../support/capture-logger.ts';
import { describeSurfaceContract, type ShownMessage } from '../support/surface-contract.ts';

let fake: FakeDiscord;
let client: Client<true>;
const outbound = createDiscordOutbound();

beforeAll(async () => {
  fake = await startFakeDiscord();
  client = await connectClient(fake);
});
afterAll(async () => {
  await client.destroy();
  await fake.close();
});

function shownIn(channelId: string): ShownMessage[] {
  return fake
    .messages(channelId)
    .filter((message) => message.author.id === fake.bot.id)
    .map((message) => ({
      text: message.content,
      buttons: message.components.flatMap((row) =>
        'components' in row
          ? row.components.flatMap((component) =>
              'label' in component && typeof component.label === 'string' ? [component.label] : [],
            )
          : [],
      ),
    }));
}

// A reply to a person's message in a channel, through the real discord.js client and the bot's queue.
describeSurfaceContract({
  name: 'Discord channel',
  async open() {
    const channelId = fake.createTextChannel({ name: `contract-${Math.random().toString(36).slice(2, 8)}` });
    const channel = await fake.waitFor(() => client.channels.cache.get(channelId) as TextChannel | undefined);
    const questionId = fake.sendUserMessage({ channelId, content: 'a question', mentionsBot: true });
    const question = await channel.messages.fetch(questionId);
    const surface = createChannelSurface({ channel, outbound, replyTo: question, botUserId: fake.bot.id });
    return { surface, shown: async () => shownIn(channelId) };
  },
});

// /chat streams through the interaction: the deferred "thinking…" becomes the first message.
describeSurfaceContract({
  name: 'Discord interaction',
  async open() {
    const channelId = fake.createTextChannel({ name: `contract-${Math.random().toString(36).slice(2, 8)}` });
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
    fake.sendSlashCommand({ name: 'chat', channelId, options: { message: 'a question' } });
    const interaction = await arrived;
    await interaction.deferReply();
    const { surface } = createInteractionResponder({
      interaction,
      deferral: 'public-reply',
      logger: createCapturedLogger().logger,
    });
    return { surface, shown: async () => shownIn(channelId) };
  },
});
