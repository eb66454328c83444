import { Keyv } from 'keyv';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { appMention } from '../fakes/slack/index.ts';
import { startSlackUnderTest } from '../slack/slack-under-test.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';

/**
 * A turn's facts are read once, at the door, and passed down (issue 39): the place's settings
 * (overrides over the environment) are read for the reply mode, and the gate, the engine and the
 * spend guard use that reading rather than asking the store again; the conversation's history head
 * is read once as the turn is prepared, and the append and the summary fold after the reply use
 * that reading. Not a cache across turns: the next mention reads them afresh, so a /config change
 * from any process counts at once.
 */
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const close of closers.splice(0)) await close();
});

/**
 * Counts the store reads of a conversation's history head (the `history` namespace's record named
 * by the conversation key; its turns are `<key>#<n>`), on any keyv store opened after the call.
 */
function countHistoryHeadReads(): () => number {
  let reads = 0;
  const get = Keyv.prototype.get;
  vi.spyOn(Keyv.prototype, 'get').mockImplementation(function (this: Keyv, ...parameters: unknown[]) {
    const [key] = parameters;
    if (this.namespace === 'history' && typeof key === 'string' && !key.includes('#')) reads += 1;
    return (get as (...parameters: unknown[]) => unknown).apply(this, parameters);
  } as never);
  return () => reads;
}

/** Counts the place-settings reads of the one reader the gate, the engine and the spend guard share. */
function countSettingsReads(places: { settingsAt: (...args: never[]) => Promise<unknown> }): () => number {
  let reads = 0;
  const read = places.settingsAt.bind(places);
  places.settingsAt = ((...args: never[]) => {
    reads += 1;
    return read(...args);
  }) as typeof places.settingsAt;
  return () => reads;
}

describe('one read of the place’s settings per mention', () => {
  it('on Discord, for each mention in a channel', async () => {
    const headReads = countHistoryHeadReads();
    const under: DiscordUnderTest = await startDiscordUnderTest({ DISCORD_REPLY_MODE: 'inline' });
    closers.push(() => under.close());
    const reads = countSettingsReads(under.app.places);
    for (const [index, answer] of ['First.', 'Second.'].entries()) {
      const before = reads();
      const headsBefore = headReads();
      under.gateway.enqueue({ text: answer });
      under.discord.sendUserMessage({
        channelId: under.generalChannelId,
        content: `question ${index}`,
        mentionsBot: true,
      });
      await under.discord.waitFor(() =>
        under.botMessages(under.generalChannelId).find((message) => message.content.startsWith(answer)),
      );
      // The reply's last store work (the fold check after it) is done once the engine is idle.
      await under.app.engine.whenIdle();
      expect(reads() - before, `mention ${index + 1}`).toBe(1);
      expect(headReads() - headsBefore, `history head reads, mention ${index + 1}`).toBe(1);
    }
  });

  it('on Slack, for a mention', async () => {
    const headReads = countHistoryHeadReads();
    const bot = await startSlackUnderTest({ mode: 'http' });
    closers.push(() => bot.close());
    const reads = countSettingsReads(bot.app.places);
    bot.gateway.enqueue({ text: 'Hello there.' });
    const before = reads();
    const headsBefore = headReads();
    await bot.deliverEvent(appMention({ channel: 'C0ONEREAD1', text: 'hi', user: 'U0ASKER001' }));
    await bot.slack.waitFor(() =>
      bot.slack.calls.find((call) => JSON.stringify(call.arguments).includes('Hello there.')),
    );
    await bot.app.engine.whenIdle();
    expect(reads() - before).toBe(1);
    expect(headReads() - headsBefore, 'history head reads').toBe(1);
  });
});
