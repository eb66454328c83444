import { afterEach, describe, expect, it } from 'vitest';
import { appMention } from '../fakes/slack/index.ts';
import { startSlackUnderTest } from '../slack/slack-under-test.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';

/**
 * A turn's facts are read once, at the door, and passed down (issue 39): the place's settings
 * (overrides over the environment) are read for the reply mode, and the gate, the engine and the
 * spend guard use that reading rather than asking the store again. Not a cache across turns: the
 * next mention reads them afresh, so a /config change from any process counts at once.
 */
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

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
    const under: DiscordUnderTest = await startDiscordUnderTest({ DISCORD_REPLY_MODE: 'inline' });
    closers.push(() => under.close());
    const reads = countSettingsReads(under.app.places);
    for (const [index, answer] of ['First.', 'Second.'].entries()) {
      const before = reads();
      under.gateway.enqueue({ text: answer });
      under.discord.sendUserMessage({
        channelId: under.generalChannelId,
        content: `question ${index}`,
        mentionsBot: true,
      });
      await under.discord.waitFor(() =>
        under.botMessages(under.generalChannelId).find((message) => message.content.startsWith(answer)),
      );
      expect(reads() - before, `mention ${index + 1}`).toBe(1);
    }
  });

  it('on Slack, for a mention', async () => {
    const bot = await startSlackUnderTest({ mode: 'http' });
    closers.push(() => bot.close());
    const reads = countSettingsReads(bot.app.places);
    bot.gateway.enqueue({ text: 'Hello there.' });
    const before = reads();
    await bot.deliverEvent(appMention({ channel: 'C0ONEREAD1', text: 'hi', user: 'U0ASKER001' }));
    await bot.slack.waitFor(() =>
      bot.slack.calls.find((call) => JSON.stringify(call.arguments).includes('Hello there.')),
    );
    expect(reads() - before).toBe(1);
  });
});
