import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { appMention } from '../fakes/slack/index.ts';
import { type SlackUnderTest, startSlackUnderTest } from './slack-under-test.ts';

/**
 * "is thinking…" (assistant.threads.setStatus) is for a reply that keeps the person waiting: one
 * whose first text comes within the delay needs none, and Slack clears the status as the reply
 * arrives anyway. The call would cost the thread's budget and, awaited, a round trip before the
 * model is even asked.
 */
describe('slack: the thinking status', () => {
  let bot: SlackUnderTest;

  beforeAll(async () => {
    bot = await startSlackUnderTest({ mode: 'http', thinkingStatusDelayMs: 300 });
  });
  afterAll(() => bot.close());
  beforeEach(() => bot.reset());

  it('is not shown for a reply whose first text comes within the delay', async () => {
    bot.gateway.enqueue({ text: 'Quick answer.' });
    const mention = appMention({ channel: 'C0STATUS01', text: 'quick?' });
    await bot.deliverEvent(mention);
    await bot.slack.waitFor(() => bot.slack.streams.find((entry) => entry.state === 'stopped'));
    await new Promise((resolve) => setTimeout(resolve, 400));

    expect(bot.slack.callsTo('assistant.threads.setStatus')).toEqual([]);
  });

  it('goes up under the thread while the model has not answered after the delay', async () => {
    bot.gateway.enqueue({ text: 'Slow answer.', latencyMs: 1_000 });
    const mention = appMention({ channel: 'C0STATUS02', text: 'slow?' });
    await bot.deliverEvent(mention);
    const status = await bot.slack.waitFor(() => bot.slack.callsTo('assistant.threads.setStatus')[0]);

    expect(status.arguments).toMatchObject({
      channel_id: 'C0STATUS02',
      thread_ts: mention.ts,
      status: 'is thinking…',
    });
    expect(bot.slack.streams).toEqual([]);
    const stream = await bot.slack.waitFor(() =>
      bot.slack.streams.find((entry) => entry.state === 'stopped'),
    );
    expect(stream.text).toBe('Slow answer.');
  });
});
