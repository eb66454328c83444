import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { appMention, buttonClick } from '../fakes/slack/index.ts';
import { botReplies, buttonsOf, finishedReplies, markdownOf } from './reply-blocks.ts';
import { type SlackUnderTest, startSlackUnderTest } from './slack-under-test.ts';

describe('slack over HTTP: the buttons of a chat reply streamed with chat.update', () => {
  let bot: SlackUnderTest;
  const replies = (channel: string, threadTs: string) => botReplies(bot, channel, threadTs);
  const finished = (channel: string, threadTs: string, count = 1) =>
    finishedReplies(bot, channel, threadTs, count);

  beforeAll(async () => {
    bot = await startSlackUnderTest({ mode: 'http', slackOptions: { nativeStreaming: 'not_allowed' } });
  });
  afterAll(() => bot.close());
  beforeEach(() => bot.reset());

  it('Stop ends a slow reply, keeping its text; Regenerate writes it again', async () => {
    bot.gateway.enqueue({ text: 'tick '.repeat(200), chunkSize: 5, delayBetweenChunksMs: 100 });
    const mention = appMention({ channel: 'C0STOPPED1', text: 'count forever' });
    await bot.deliverEvent(mention);
    const streaming = await bot.slack.waitFor(() => {
      const message = replies('C0STOPPED1', String(mention.ts))[0];
      return buttonsOf(message)[0]?.text.text === 'Stop' ? message : undefined;
    });

    const stop = buttonsOf(streaming)[0];
    const click = await bot.slack.deliverInteraction({
      payload: buttonClick({
        actionId: stop?.action_id ?? '',
        messageTs: streaming.ts,
        channel: 'C0STOPPED1',
        threadTs: String(mention.ts),
      }),
    });
    const [stopped] = await finished('C0STOPPED1', String(mention.ts));

    expect(click.status).toBe(200);
    expect(markdownOf(stopped)).toMatch(/^(tick )+/);
    expect(markdownOf(stopped)).toContain('_⚠ reply cut off: Stopped._');
    expect(markdownOf(stopped)?.length).toBeLessThan(400);

    bot.gateway.enqueue({ text: 'Counted to three.' });
    const regenerate = buttonsOf(stopped)[0];
    await bot.slack.deliverInteraction({
      payload: buttonClick({
        actionId: regenerate?.action_id ?? '',
        messageTs: stopped?.ts ?? '',
        channel: 'C0STOPPED1',
        threadTs: String(mention.ts),
      }),
    });
    const both = await finished('C0STOPPED1', String(mention.ts), 2);

    expect(markdownOf(both[1])).toBe('Counted to three.');
    const chats = bot.gateway.requests.filter((request) => request.path.endsWith('/chat/completions'));
    const regenerated = chats[1]?.body as { messages: Array<{ role: string; content: string }> };
    // The stopped reply was replaced in history, not answered after.
    expect(regenerated.messages.map((message) => message.role)).toEqual(['system', 'user']);
    expect(regenerated.messages[1]?.content).toBe('user-u0person01: count forever');
  });
});
