import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { conversationKeyOf } from '../../src/conversation/turn.ts';
import {
  agentSessionStopped,
  appContextChanged,
  appHomeOpened,
  assistantThreadStarted,
  directMessage,
} from '../fakes/slack/index.ts';
import { botReplies, finishedReplies, markdownOf } from './reply-blocks.ts';
import { type SlackUnderTest, startSlackUnderTest } from './slack-under-test.ts';

describe('slack agent view: prompts, threads of a DM, Slack’s own stop control', () => {
  let bot: SlackUnderTest;
  const promptTitles = (index = -1) =>
    bot.slack.agent.suggestedPrompts.at(index)?.prompts.map((prompt) => prompt.title);

  beforeAll(async () => {
    // The status goes up at once here, as these cases check it; thinking-status.test.ts checks its delay.
    bot = await startSlackUnderTest({ mode: 'http', thinkingStatusDelayMs: 0 });
  });
  afterAll(() => bot.close());
  beforeEach(() => {
    bot.reset();
    bot.slack.agent.experience = 'agent';
  });

  it('suggests prompts about the channel in view when the person opens the DM, and follows them around', async () => {
    await bot.deliverEvent(
      appHomeOpened({ channel: 'D0AGENT001', tab: 'messages', viewedChannel: 'C0DESIGN01' }),
    );
    const first = await bot.slack.waitFor(() => bot.slack.agent.suggestedPrompts[0]);

    expect(first.channel).toBe('D0AGENT001');
    // The agent experience sets prompts for the whole DM: a thread_ts would make the call fail silently.
    expect(first.threadTs).toBeUndefined();
    expect(promptTitles()).toEqual(expect.arrayContaining(['Summarize this channel', 'What did I miss?']));
    expect(first.prompts[0]?.message).toContain('<#C0DESIGN01>');

    await bot.deliverEvent(appContextChanged({ channel: 'D0AGENT001', viewedChannel: 'C0RELEASE1' }));
    await bot.slack.waitFor(() => bot.slack.agent.suggestedPrompts[1]);
    expect(bot.slack.agent.suggestedPrompts[1]?.prompts[0]?.message).toContain('<#C0RELEASE1>');

    await bot.deliverEvent(appContextChanged({ channel: 'D0AGENT001' }));
    await bot.slack.waitFor(() => bot.slack.agent.suggestedPrompts[2]);
    expect(promptTitles()).not.toContain('Summarize this channel');
    expect(promptTitles()).toContain('What can you do?');
    for (const call of bot.slack.callsTo('assistant.threads.setSuggestedPrompts')) {
      expect(call.result.ok).toBe(true);
      expect(call.arguments.thread_ts).toBeUndefined();
    }
  });

  it('in an app still on assistant_view, sets the prompts of each new assistant thread', async () => {
    bot.slack.agent.experience = 'assistant';
    await bot.deliverEvent(
      assistantThreadStarted({
        channel: 'D0AGENT002',
        threadTs: '1700000000.000100',
        viewedChannel: 'C0DESIGN01',
      }),
    );
    const prompts = await bot.slack.waitFor(() => bot.slack.agent.suggestedPrompts[0]);

    expect(prompts.threadTs).toBe('1700000000.000100');
    expect(promptTitles()).toContain('Summarize this channel');
  });

  it('keeps one conversation per thread of the DM, with "is thinking…" under each', async () => {
    bot.gateway.enqueue({ text: 'Paris.' });
    bot.gateway.enqueue({ text: JSON.stringify({ title: 'The capital of France' }) });
    const firstRoot = directMessage({ channel: 'D0AGENT003', text: 'capital of France?' });
    await bot.deliverEvent({ ...firstRoot, thread_ts: firstRoot.ts });
    await finishedReplies(bot, 'D0AGENT003', String(firstRoot.ts));
    // After the first exchange the title model names the thread in the agent view's list.
    const title = await bot.slack.waitFor(() =>
      bot.slack.agent.threadTitles.get(`D0AGENT003 ${firstRoot.ts}`),
    );
    expect(title).toBe('The capital of France');
    const titleRequest = bot.gateway.requests.filter((request) =>
      request.path.endsWith('/chat/completions'),
    )[1];
    expect(JSON.stringify(titleRequest?.body)).toContain('json_schema');

    bot.gateway.enqueue({ text: 'Blue.' });
    bot.gateway.enqueue({ text: JSON.stringify({ title: 'Sky colour' }) });
    const secondRoot = directMessage({ channel: 'D0AGENT003', text: 'colour of the sky?' });
    await bot.deliverEvent({ ...secondRoot, thread_ts: secondRoot.ts });
    const [second] = await finishedReplies(bot, 'D0AGENT003', String(secondRoot.ts));

    expect(second?.text).toBe('Blue.');
    const chats = bot.gateway.requests.filter((request) => request.path.endsWith('/chat/completions'));
    const secondBody = chats[2]?.body as { messages: Array<{ role: string; content: string }> };
    // The second thread does not see the first one's exchange.
    expect(secondBody.messages.map((message) => message.role)).toEqual(['system', 'user']);
    const history = await bot.services.history.load(
      conversationKeyOf({
        platform: 'slack',
        workspace: 'T0FAKETEAM',
        channel: 'D0AGENT003',
        thread: String(firstRoot.ts),
      }),
    );
    expect(history.map((turn) => turn.role)).toEqual(['user', 'assistant']);
    await bot.slack.waitFor(() => bot.slack.agent.threadTitles.get(`D0AGENT003 ${secondRoot.ts}`));
    // One title a thread, set once after its first exchange.
    expect(bot.slack.callsTo('assistant.threads.setTitle')).toHaveLength(2);
    const statuses = bot.slack.callsTo('assistant.threads.setStatus').map((call) => call.arguments.thread_ts);
    expect(statuses).toEqual(expect.arrayContaining([String(firstRoot.ts), String(secondRoot.ts)]));
  });

  it('stops a streaming reply when the person presses Slack’s stop control, keeping its text', async () => {
    bot.gateway.enqueue({ text: 'tick '.repeat(300), chunkSize: 5, delayBetweenChunksMs: 50 });
    const root = directMessage({ channel: 'D0AGENT004', text: 'count forever' });
    const threadTs = String(root.ts);
    await bot.deliverEvent({ ...root, thread_ts: threadTs });
    const stream = await bot.slack.waitFor(() => bot.slack.streams.find((entry) => entry.text.length > 20));

    const stoppedTs = bot.slack.stopAgentSession({ channel: 'D0AGENT004', threadTs });
    expect(stoppedTs).toEqual([stream.ts]);
    const delivery = await bot.deliverEvent(
      agentSessionStopped({ channel: 'D0AGENT004', threadTs, streamingMessageTs: stoppedTs }),
    );
    expect(delivery.status).toBe(200);
    const [reply] = await finishedReplies(bot, 'D0AGENT004', threadTs);

    expect(markdownOf(reply) ?? reply?.text).toMatch(/^(tick )+/);
    expect((markdownOf(reply) ?? reply?.text ?? '').length).toBeLessThan(1_200);
    // The session leaves "processing": the app ends the stream itself, with chat.stopStream, saying why.
    expect(stream.state).toBe('stopped');
    expect(stream.writes.at(-1)?.method).toBe('chat.stopStream');
    expect(stream.text).toMatch(/reply cut off: Stopped\._$/);
    const key = conversationKeyOf({
      platform: 'slack',
      workspace: 'T0FAKETEAM',
      channel: 'D0AGENT004',
      thread: threadTs,
    });
    const history = await bot.services.history.load(key);
    expect(history.at(-1)?.role).toBe('assistant');
    expect(botReplies(bot, 'D0AGENT004', threadTs)).toHaveLength(1);
  });
});
