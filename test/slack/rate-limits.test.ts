import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { appMention, threadReply } from '../fakes/slack/index.ts';
import { botReplies, lastUserContent, markdownOf } from './reply-blocks.ts';
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

  it('shows every reply of a burst of mentions early, each final exact, with no 429', async () => {
    const count = 20;
    const paragraph = (index: number) =>
      `Paragraph ${index} of the answer, with **bold words**, a \`command\` and plain prose that goes on.`;
    const answer = Array.from({ length: 8 }, (_, index) => paragraph(index + 1)).join('\n\n');
    // About 4 s of streaming: long enough that a reply held until it is whole shows nothing until then.
    bot.gateway.setDefault({ text: answer, chunkSize: 8, delayBetweenChunksMs: 40 });
    const mentions = Array.from({ length: count }, (_, index) =>
      appMention({ channel: `C0EARLY0${String(index).padStart(2, '0')}`, text: `question ${index}` }),
    );
    const shown = (mention: (typeof mentions)[number]) => {
      const messages = botReplies(bot, mention.channel as string, String(mention.ts));
      return messages.length === 0
        ? undefined
        : messages.map((message) => markdownOf(message) ?? message.text).join('');
    };

    await Promise.all(mentions.map((mention) => bot.deliverEvent(mention)));
    const firstShown = new Map<number, string>();
    const finals = await bot.slack.waitFor(() => {
      const texts = mentions.map(shown);
      for (const [index, text] of texts.entries()) {
        if (text !== undefined && /\S/.test(text) && !firstShown.has(index)) firstShown.set(index, text);
      }
      return texts.every((text) => text === answer) ? texts : undefined;
    }, 30_000);

    expect(finals).toHaveLength(count);
    expect(bot.slack.rateLimitedCount()).toBe(0);
    // Every reply showed text while its answer was still being written, not only once it was whole.
    for (const index of mentions.keys()) {
      const first = firstShown.get(index) ?? '';
      expect(first.length, `reply ${index}`).toBeGreaterThan(0);
      expect(first.length, `reply ${index}`).toBeLessThan(answer.length);
      expect(answer.startsWith(first), `reply ${index}`).toBe(true);
    }
    // A reply is one native stream, or an early part and the rest: never more than two messages.
    for (const mention of mentions) {
      expect(botReplies(bot, mention.channel as string, String(mention.ts)).length).toBeLessThanOrEqual(2);
    }
  });
});
