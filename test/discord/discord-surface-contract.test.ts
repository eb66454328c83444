import type { Client, TextChannel } from 'discord.js';
import { afterAll, beforeAll } from 'vitest';
import { createChannelSurface } from '../../adapters/discord/channel-surface.ts';
import { createDiscordOutbound } from '../../adapters/discord/discord-outbound.ts';
import { createInteractionResponder } from '../../adapters/discord/interaction-responder.ts';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord/index.ts';
import { connectClient } from '../fakes-discord/discord-client.ts';
import { createCapturedLogger } from '../support/capture-logger.ts';
import { buttonLabelsOf, receiveSlashCommand } from '../support/discord-slash-command.ts';
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
      buttons: buttonLabelsOf(message),
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
    const { channelId, interaction } = await receiveSlashCommand({
      fake,
      client,
      name: 'chat',
      options: { message: 'a question' },
    });
    await interaction.deferReply();
    const { surface } = createInteractionResponder({
      interaction,
      deferral: 'public-reply',
      logger: createCapturedLogger().logger,
    });
    return { surface, shown: async () => shownIn(channelId) };
  },
});
