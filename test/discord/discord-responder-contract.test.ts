import type { Client } from 'discord.js';
import { afterAll, beforeAll } from 'vitest';
import { createInteractionResponder } from '../../adapters/discord/interaction-responder.ts';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord/index.ts';
import { connectClient } from '../fakes-discord/discord-client.ts';
import { createCapturedLogger } from '../support/capture-logger.ts';
import { buttonLabelsOf, receiveSlashCommand, textOfMessage } from '../support/discord-slash-command.ts';
import { describeResponderContract } from '../support/responder-contract.ts';
import type { ShownMessage } from '../support/surface-contract.ts';

let fake: FakeDiscord;
let client: Client<true>;
const ephemeral = 64;

beforeAll(async () => {
  fake = await startFakeDiscord();
  client = await connectClient(fake);
});
afterAll(async () => {
  await client.destroy();
  await fake.close();
});

function shownOf(channelId: string, isPrivate: boolean): ShownMessage[] {
  return fake
    .messages(channelId)
    .filter(
      (message) => message.author.id === fake.bot.id && ((message.flags & ephemeral) !== 0) === isPrivate,
    )
    .map((message) => ({
      text: textOfMessage(message),
      buttons: buttonLabelsOf(message),
    }));
}

// A slash command deferred publicly on arrival, as parley defers every command (within Discord's 3 s).
describeResponderContract({
  name: 'Discord interaction',
  async open() {
    const { channelId, interaction } = await receiveSlashCommand({ fake, client, name: 'summarize' });
    await interaction.deferReply();
    const responder = createInteractionResponder({
      interaction,
      deferral: 'public-reply',
      logger: createCapturedLogger().logger,
    });
    return {
      responder,
      // Content "up to 2000 characters" (resources/message.mdx, "Create Message"); the fake refuses more.
      maxMessageLength: 2_000,
      shown: async () => shownOf(channelId, false),
      shownPrivately: async () => shownOf(channelId, true).map((message) => message.text),
    };
  },
});
