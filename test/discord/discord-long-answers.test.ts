import type { Client, SendableChannels } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChannelFallback } from '../../adapters/discord/channel-fallback.ts';
import { createDiscordOutbound } from '../../adapters/discord/discord-outbound.ts';
import {
  createInteractionResponder,
  type InteractionDeferral,
} from '../../adapters/discord/interaction-responder.ts';
import type { Action } from '../../src/delivery/card.ts';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord/index.ts';
import { connectClient } from '../fakes-discord/discord-client.ts';
import { createCapturedLogger } from '../support/capture-logger.ts';
import { buttonLabelsOf, receiveSlashCommand } from '../support/discord-slash-command.ts';

let fake: FakeDiscord;
let client: Client<true>;
const ephemeral = 64;
const outbound = createDiscordOutbound();
const regenerate: Action = { id: 'parley:extract.regenerate:long', label: 'Regenerate', style: 'secondary' };

beforeAll(async () => {
  fake = await startFakeDiscord();
  client = await connectClient(fake);
});
afterAll(async () => {
  await client.destroy();
  await fake.close();
});

/**
 * 90 numbered lines (about 6,000 characters) that name the person who asked: every piece carries a
 * mention Discord would ping for, unless the message disables it.
 */
function answerNaming(userId: string): string {
  return Array.from(
    { length: 90 },
    (_, index) => `${index + 1}. <@${userId}> asked, and this line is part of the answer.`,
  ).join('\n');
}

const linesOf = (texts: readonly string[]) =>
  texts.flatMap((text) => text.split('\n')).filter((line) => line.trim() !== '');
/** A slash command in a channel of its own, deferred as parley defers it. */
async function openCommand(isPrivate: boolean) {
  const { channelId, interaction, interactionId } = await receiveSlashCommand({
    fake,
    client,
    name: 'summarize',
  });
  await interaction.deferReply(isPrivate ? { flags: ephemeral } : {});
  const deferral: InteractionDeferral = isPrivate ? 'private-reply' : 'public-reply';
  return { channelId, interaction, interactionId, deferral };
}

describe('a long command answer on Discord', () => {
  it('goes privately in pieces, the first in place of the "thinking…", none of them pinging', async () => {
    const { channelId, interaction, interactionId, deferral } = await openCommand(true);
    const responder = createInteractionResponder({
      interaction,
      deferral,
      logger: createCapturedLogger().logger,
    });
    const answer = answerNaming(fake.user.id);
    await responder.send({ text: answer, actions: [regenerate], isPrivate: true });
    responder.dispose();

    const pieces = fake.messages(channelId).filter((message) => message.author.id === fake.bot.id);
    expect(pieces.length).toBeGreaterThan(2);
    expect(pieces[0]?.id).toBe(fake.interaction(interactionId)?.originalMessageId);
    expect(pieces.every((message) => (message.flags & ephemeral) !== 0)).toBe(true);
    expect(pieces.every((message) => message.interactionId === interactionId)).toBe(true);
    expect(linesOf(pieces.map((message) => message.content))).toEqual(linesOf([answer]));
    expect(pieces.flatMap((message) => message.mentionIds)).toEqual([]);
    expect(pieces.map(buttonLabelsOf)).toEqual([...pieces.slice(1).map(() => []), ['Regenerate']]);
  });

  it('continues in the channel in order and whole, naming the person once, when the token runs out after the first piece', async () => {
    const { channelId, interaction, interactionId, deferral } = await openCommand(false);
    const channel = client.channels.cache.get(channelId) as SendableChannels;
    // The token's end comes the moment the first piece has replaced the "thinking…".
    let isTokenOver = false;
    const stopWatching = fake.subscribe(() => {
      const original = fake.message(fake.interaction(interactionId)?.originalMessageId ?? '');
      if (original?.content.startsWith('1. ')) isTokenOver = true;
    });
    const responder = createInteractionResponder({
      interaction,
      deferral,
      logger: createCapturedLogger().logger,
      tokenDeadline: {
        atMs: 60_000,
        now: () => (isTokenOver ? 60_000 : 0),
        fallback: createChannelFallback({
          channel,
          user: interaction.user,
          outbound,
          botUserId: client.user.id,
        }),
      },
    });
    const answer = answerNaming(fake.user.id);
    await responder.send({ text: answer, actions: [regenerate] });
    responder.dispose();
    stopWatching();

    const messages = fake.messages(channelId).filter((message) => message.author.id === fake.bot.id);
    const [original, ...inChannel] = messages;
    expect(original?.id).toBe(fake.interaction(interactionId)?.originalMessageId);
    expect(inChannel.length).toBeGreaterThan(1);
    expect(inChannel.every((message) => message.interactionId === null)).toBe(true);
    // The channel names the person once, in front of its first piece, and pings nobody after that.
    const mention = `<@${fake.user.id}> `;
    const [firstInChannel, ...restInChannel] = inChannel;
    expect(firstInChannel?.content.startsWith(mention)).toBe(true);
    expect(firstInChannel?.mentionIds).toEqual([fake.user.id]);
    expect(restInChannel.flatMap((message) => message.mentionIds)).toEqual([]);
    const shown = [
      original?.content ?? '',
      firstInChannel?.content.slice(mention.length) ?? '',
      ...restInChannel.map((message) => message.content),
    ];
    expect(linesOf(shown)).toEqual(linesOf([answer]));
    for (const message of messages) expect([...message.content].length).toBeLessThanOrEqual(2_000);
    expect(messages.map(buttonLabelsOf)).toEqual([...messages.slice(1).map(() => []), ['Regenerate']]);
  });
});
