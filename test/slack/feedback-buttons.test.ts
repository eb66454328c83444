import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { conversationKeyOf } from '../../src/conversation/turn.ts';
import { metricsRegistry } from '../../src/operations/metrics.ts';
import { appMention, feedbackClick } from '../fakes/slack/index.ts';
import { finishedReplies } from './reply-blocks.ts';
import { type SlackUnderTest, startSlackUnderTest } from './slack-under-test.ts';

describe('slack: 👍/👎 on a finished reply', () => {
  let bot: SlackUnderTest;

  beforeAll(async () => {
    bot = await startSlackUnderTest({ mode: 'http', slackOptions: { nativeStreaming: 'not_allowed' } });
  });
  afterAll(() => bot.close());
  beforeEach(() => bot.reset());

  it('shows Slack’s feedback buttons under the reply; a click is kept with the turn and its model, and counted', async () => {
    bot.gateway.enqueue({ text: 'Forty-two.' });
    const question = appMention({ channel: 'C0FEEDBK01', text: 'the answer?' });
    const threadTs = String(question.ts);
    await bot.deliverEvent(question);
    const [reply] = await finishedReplies(bot, 'C0FEEDBK01', threadTs);
    const feedback = (reply?.blocks ?? []).find(
      (block) => (block as { type?: string }).type === 'context_actions',
    );
    expect(feedback).toMatchObject({
      type: 'context_actions',
      elements: [
        {
          type: 'feedback_buttons',
          positive_button: { text: { text: '👍' } },
          negative_button: { text: { text: '👎' } },
        },
      ],
    });

    const before = await feedbackCount('negative');
    const click = (await bot.deliverInteraction(
      feedbackClick({ message: reply ?? { ts: '' }, channel: 'C0FEEDBK01', side: 'negative', threadTs }),
    )) as { status?: number };
    expect(click.status).toBe(200);
    await bot.slack.waitFor(() => bot.slack.ephemeralMessages.find((message) => /Thanks/.test(message.text)));

    const key = conversationKeyOf({
      platform: 'slack',
      workspace: 'T0FAKETEAM',
      channel: 'C0FEEDBK01',
      thread: threadTs,
    });
    const [, answer] = await bot.services.history.load(key);
    const kept = await bot.services.feedback.find({
      conversationKey: key,
      replyCreatedAt: answer?.createdAt ?? '',
      userId: 'U0PERSON01',
    });
    expect(kept).toMatchObject({ rating: 'negative', model: 'chat-model', platform: 'slack' });
    expect(await feedbackCount('negative')).toBe(before + 1);
    expect(bot.logOutput()).toContain('a reply was rated');
  });
});

async function feedbackCount(rating: string): Promise<number> {
  const metric = await metricsRegistry.getSingleMetric('parley_reply_feedback_total')?.get();
  return (metric?.values ?? [])
    .filter((value) => value.labels.rating === rating && value.labels.platform === 'slack')
    .reduce((sum, value) => sum + value.value, 0);
}
