import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { appMention } from '../fakes/slack/index.ts';
import { botReplies, buttonsOf, finishedReplies, markdownOf } from './reply-blocks.ts';
import { type SlackUnderTest, startSlackUnderTest } from './slack-under-test.ts';

function firstBlockOf(callArguments: Record<string, unknown> | undefined): unknown {
  return (callArguments?.blocks as unknown[] | undefined)?.[0];
}

describe('slack over HTTP: chat streamed with chat.update when native streaming is refused', () => {
  let bot: SlackUnderTest;
  const replies = (channel: string, threadTs: string) => botReplies(bot, channel, threadTs);
  const finished = (channel: string, threadTs: string, count = 1) =>
    finishedReplies(bot, channel, threadTs, count);

  beforeAll(async () => {
    bot = await startSlackUnderTest({ mode: 'http', slackOptions: { nativeStreaming: 'not_allowed' } });
  });
  afterAll(() => bot.close());
  beforeEach(() => bot.reset());

  it('posts, edits within the Tier 3 budget and leaves the exact text; the refusal is remembered', async () => {
    const reply = 'Step **one**, then [the docs](https://example.com/docs).\n\n- a\n- b';
    // Long enough (about 3 s) for in-between edits between the post and the final write.
    bot.gateway.enqueue({ text: reply, chunkSize: 5, delayBetweenChunksMs: 250 });
    const mention = appMention({ channel: 'C0UPDATE01', text: 'how?' });

    await bot.deliverEvent(mention);
    const [message] = await finished('C0UPDATE01', String(mention.ts));

    expect(message?.threadTs).toBe(mention.ts);
    expect(markdownOf(message)).toBe(reply);
    // The notification text is the same reply in mrkdwn.
    expect(message?.text).toBe('Step *one*, then <https://example.com/docs|the docs>.\n\n• a\n• b');
    // The final text and the Regenerate button go out in one chat.update.
    expect(message?.editCount).toBeGreaterThanOrEqual(1);
    const lastUpdate = bot.slack.callsTo('chat.update').at(-1)?.arguments.blocks as unknown[] | undefined;
    expect(lastUpdate?.[0]).toEqual({ type: 'markdown', text: reply });
    expect(JSON.stringify(lastUpdate?.[1])).toContain('Regenerate');
    // Text edits are spaced for Tier 3 (the last update only swaps Stop for Regenerate).
    const writes = [...bot.slack.callsTo('chat.postMessage'), ...bot.slack.callsTo('chat.update')]
      .filter(
        (call, index, calls) =>
          index === 0 ||
          JSON.stringify(firstBlockOf(call.arguments)) !==
            JSON.stringify(firstBlockOf(calls[index - 1]?.arguments)),
      )
      .map((call) => call.receivedAtMs);
    expect(writes.length).toBeGreaterThanOrEqual(3);
    // The final write is not held to that pace: it goes as soon as the chat.update budget allows.
    for (let index = 1; index < writes.length - 1; index += 1) {
      expect((writes[index] ?? 0) - (writes[index - 1] ?? 0)).toBeGreaterThanOrEqual(1_200);
    }
    expect(bot.slack.callsTo('chat.startStream')).toHaveLength(1);

    bot.gateway.enqueue({ text: 'Again.' });
    const second = appMention({ channel: 'C0UPDATE01', text: 'more?' });
    await bot.deliverEvent(second);
    await finished('C0UPDATE01', String(second.ts));
    expect(bot.slack.callsTo('chat.startStream')).toHaveLength(1);
  });

  it('completes a reply through a 429 with Retry-After on chat.postMessage and chat.update', async () => {
    bot.slack.forceRateLimit({ method: 'chat.postMessage', retryAfterSec: 1 });
    bot.slack.forceRateLimit({ method: 'chat.update', retryAfterSec: 1 });
    bot.gateway.enqueue({ text: 'Patience pays.', chunkSize: 4, delayBetweenChunksMs: 60 });
    const mention = appMention({ channel: 'C0LIMITED1', text: 'slowly' });

    await bot.deliverEvent(mention);
    const [message] = await finished('C0LIMITED1', String(mention.ts));

    expect(markdownOf(message)).toBe('Patience pays.');
    expect(bot.slack.rateLimitedCount('chat.postMessage')).toBe(1);
    expect(bot.slack.rateLimitedCount('chat.update')).toBe(1);
    expect(replies('C0LIMITED1', String(mention.ts))).toHaveLength(1);
  });

  it('rolls a long reply over into more messages, each within the markdown block limit', async () => {
    const paragraph = `${'word '.repeat(199)}end.`;
    const reply = Array.from({ length: 24 }, () => paragraph).join('\n\n');
    bot.gateway.enqueue({ text: reply, chunkSize: 2_000 });
    const mention = appMention({ channel: 'C0LONGLONG', text: 'write a lot' });

    await bot.deliverEvent(mention);
    const messages = await finished('C0LONGLONG', String(mention.ts), 3);

    expect(messages).toHaveLength(3);
    const texts = messages.map(markdownOf);
    expect(texts.every((text) => (text?.length ?? 0) <= 10_000)).toBe(true);
    expect(texts.join('')).toBe(reply);
    // Buttons: Stop went away from the first message, Regenerate is under the last only.
    expect(buttonsOf(messages[0])).toEqual([]);
    expect(buttonsOf(messages[1])).toEqual([]);
  });
});
