import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { appMention, threadReply } from '../fakes/slack/index.ts';
import { lastUserContent, markdownOf } from './reply-blocks.ts';
import { type SlackUnderTest, startSlackUnderTest } from './slack-under-test.ts';

/**
 * Slack's Web API tiers against the real bot: the fake answers 429 past each method's documented rate
 * (docs.slack.dev method pages), and @slack/web-api's WebClient, left to itself, pauses every call of
 * the workspace's client for the Retry-After of any one of them.
 */
describe('slack: rate limits hold back only the method Slack limited', () => {
  let bot: SlackUnderTest;

  beforeAll(async () => {
    // The status goes up at once here, as these cases check it; thinking-status.test.ts checks its delay.
    bot = await startSlackUnderTest({ mode: 'http', thinkingStatusDelayMs: 0 });
  });
  afterAll(() => bot.close());
  beforeEach(() => bot.reset());

  it('finishes replies while the status line and name lookups wait out a 30 s Retry-After', async () => {
    bot.slack.forceRateLimit({ method: 'assistant.threads.setStatus', retryAfterSec: 30 });
    bot.slack.forceRateLimit({ method: 'users.info', retryAfterSec: 30 });
    bot.gateway.enqueue({ text: 'Answered anyway.' });
    const mention = appMention({ channel: 'C0LIMITS01', text: 'hello', user: 'U0ADA00001' });

    await bot.deliverEvent(mention);
    const stream = await bot.slack.waitFor(() =>
      bot.slack.streams.find((entry) => entry.state === 'stopped'),
    );

    expect(stream.text).toBe('Answered anyway.');
    expect(bot.slack.rateLimitedCount('assistant.threads.setStatus')).toBe(1);
    // The name could not be looked up, so the model hears the person's id.
    expect(lastUserContent(bot)).toBe('U0ADA00001: hello');

    // While the status line is known to be limited, the next reply does not ask Slack again.
    bot.gateway.enqueue({ text: 'Again.' });
    await bot.deliverEvent(
      threadReply({ channel: 'C0LIMITS01', threadTs: String(mention.ts), text: 'more' }),
    );
    await bot.slack.waitFor(() => bot.slack.streams.filter((entry) => entry.state === 'stopped')[1]);
    expect(bot.slack.callsTo('assistant.threads.setStatus')).toHaveLength(1);
  });

  it('keeps chat.startStream and chat.stopStream within Tier 2 when many replies start at once', async () => {
    const count = 9;
    bot.gateway.setDefault({ text: 'Short answer.', delayBetweenChunksMs: 20 });
    const mentions = Array.from({ length: count }, (_, index) =>
      appMention({ channel: `C0BURST00${index}`, text: `question ${index}` }),
    );

    await Promise.all(mentions.map((mention) => bot.deliverEvent(mention)));
    const finished = await bot.slack.waitFor(() => {
      const replies = mentions.map((mention) =>
        bot.slack
          .messages(mention.channel as string, String(mention.ts))
          .find((message) => message.botId !== undefined && message.streamingState !== 'in_progress'),
      );
      const isDone = replies.every(
        (reply) => reply !== undefined && JSON.stringify(reply.blocks ?? []).includes('Regenerate'),
      );
      return isDone ? replies : undefined;
    }, 10_000);

    expect(bot.slack.rateLimitedCount('chat.startStream')).toBe(0);
    expect(bot.slack.rateLimitedCount('chat.stopStream')).toBe(0);
    expect(bot.slack.rateLimitedCount()).toBe(0);
    // Those that could not stream natively within the budget were written with chat.update instead.
    expect(bot.slack.callsTo('chat.startStream').length).toBeLessThan(count);
    for (const reply of finished) {
      const shown = reply?.streamingState === 'completed' ? reply.text : markdownOf(reply);
      expect(shown).toBe('Short answer.');
    }
  });
});
