import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { slashCommand } from '../fakes/slack/index.ts';
import { type SlackUnderTest, startSlackUnderTest } from './slack-under-test.ts';

const summary = {
  title: 'Recent talk',
  tldr: 'People counted.',
  keyPoints: ['They counted to forty'],
  decisions: [],
  actionItems: [],
  openQuestions: [],
};

/**
 * An app distributed outside the Slack Marketplace reads history at Tier 1, at most 15 messages a
 * call (docs.slack.dev changelog, 2025-05-29): /summarize uses what one call gives and says so.
 */
describe('slack: history limits of apps outside the Marketplace', () => {
  let bot: SlackUnderTest;

  beforeAll(async () => {
    bot = await startSlackUnderTest({ mode: 'http', slackOptions: { historyAccess: 'non-marketplace' } });
  });
  afterAll(() => bot.close());
  beforeEach(() => bot.reset());

  it('/summarize reads one page of 15, says why, and never draws a 429', async () => {
    for (let index = 1; index <= 40; index += 1) {
      bot.slack.addMessage({ channel: 'C0CAPPED01', user: 'U0PERSON02', text: `count ${index}` });
    }
    bot.gateway.enqueue({ text: JSON.stringify(summary) });

    await bot.deliverCommand(
      slashCommand({ command: '/summarize', text: '--messages 40', channel: 'C0CAPPED01' }),
    );
    const card = await bot.slack.waitFor(() =>
      bot.slack
        .messages('C0CAPPED01')
        .find((message) => JSON.stringify(message.blocks ?? []).includes('header')),
    );

    // One page of 15: the newest 14 counts and parley's own progress line above them.
    const prompt = JSON.stringify(bot.gateway.requests[0]?.body);
    expect(prompt).toContain('count 40');
    expect(prompt).toContain('count 27');
    expect(prompt).not.toContain('count 26');
    expect(bot.slack.rateLimitedCount('conversations.history')).toBe(0);
    expect(JSON.stringify(card.blocks)).toContain(
      'Slack let me read only the last 15 of the 40 messages you asked for',
    );
  });

  it('says when Slack is limiting reads of the channel, instead of failing silently', async () => {
    bot.slack.addMessage({ channel: 'C0CAPPED02', user: 'U0PERSON02', text: 'hello' });
    bot.slack.forceRateLimit({ method: 'conversations.history', retryAfterSec: 45 });

    await bot.deliverCommand(slashCommand({ command: '/summarize', channel: 'C0CAPPED02' }));
    const notice = await bot.slack.waitFor(() => bot.slack.ephemeralMessages[0]);

    expect(notice.text).toMatch(/Slack is limiting how often I may read this channel.*45 seconds/);
    expect(bot.gateway.requests).toEqual([]);
  });
});
