import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { conversationKeyOf } from '../../src/conversation/turn.ts';
import { metricsRegistry } from '../../src/operations/metrics.ts';
import { appMention, buttonClick, feedbackClick, slashCommand } from '../fakes/slack/index.ts';
import { buttonsOf, finishedReplies } from './reply-blocks.ts';
import { type SlackUnderTest, startSlackUnderTest } from './slack-under-test.ts';

describe('slack: 👍/👎 on a finished reply', () => {
  let bot: SlackUnderTest;

  beforeAll(async () => {
    bot = await startSlackUnderTest({
      mode: 'http',
      slackOptions: { nativeStreaming: 'not_allowed' },
      // Admins see the ratings in /usage --top.
      prepare: (fake) => fake.addUser({ id: 'U0PERSON01', isAdmin: true }),
    });
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

    // A changed mind replaces the person's rating; admins see the totals by model in /usage --top.
    await bot.deliverInteraction(
      feedbackClick({ message: reply ?? { ts: '' }, channel: 'C0FEEDBK01', side: 'positive', threadTs }),
    );
    await bot.slack.waitFor(
      () => bot.slack.ephemeralMessages.filter((message) => /Thanks/.test(message.text))[1],
    );
    await bot.deliverCommand(slashCommand({ command: '/usage', text: '--top', channel: 'C0FEEDBK01' }));
    const top = await bot.slack.waitFor(() =>
      bot.slack.responseUrlPosts.find((post) => JSON.stringify(post).includes('Ratings of replies')),
    );
    expect(JSON.stringify(top)).toContain('chat-model` 👍 1 · 👎 0');

    // A regenerated reply may be rated too.
    bot.gateway.enqueue({ text: 'Still forty-two.' });
    await bot.deliverInteraction(
      buttonClick({
        actionId: buttonsOf(reply)[0]?.action_id ?? '',
        messageTs: reply?.ts ?? '',
        channel: 'C0FEEDBK01',
        threadTs,
      }),
    );
    const replies = await finishedReplies(bot, 'C0FEEDBK01', threadTs, 2);
    expect(JSON.stringify(replies.at(-1)?.blocks)).toContain('feedback_buttons');
  });
});

async function feedbackCount(rating: string): Promise<number> {
  const metric = await metricsRegistry.getSingleMetric('parley_reply_feedback_total')?.get();
  return (metric?.values ?? [])
    .filter((value) => value.labels.rating === rating && value.labels.platform === 'slack')
    .reduce((sum, value) => sum + value.value, 0);
}
