import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeSearxng, startFakeSearxng } from '../fakes/searxng/fake-searxng.ts';
import { appMention, buttonClick, type StoredMessage } from '../fakes/slack/index.ts';
import { actingTool, slowTool } from '../support/test-tools.ts';
import { buttonsOf } from './reply-blocks.ts';
import { type SlackUnderTest, startSlackUnderTest } from './slack-under-test.ts';

/**
 * Tool steps people can see on Slack (issue 25): task cards in the native stream, checked by the
 * fake against the documented chunk shapes, and a compact status line where Slack will not stream.
 */
let searxng: FakeSearxng;
let bot: SlackUnderTest | undefined;
beforeAll(async () => {
  searxng = await startFakeSearxng();
});
afterAll(() => searxng.close());
afterEach(async () => {
  await bot?.close();
  bot = undefined;
  searxng.reset();
});

describe('tool steps on Slack', () => {
  it('streams each call as a task card in a plan, with the links a search found, then the answer', async () => {
    bot = await startSlackUnderTest({
      mode: 'http',
      environment: { SEARCH_URL: searxng.url, CHAT_MODEL: 'tools-model' },
    });
    bot.gateway.enqueue({
      toolCalls: [
        { name: 'web_search', arguments: { query: 'ferry timetable' } },
        { name: 'web_search', arguments: { query: 'ferry prices' } },
      ],
    });
    bot.gateway.enqueue({ text: 'The ferry leaves at 9 [1].' });
    const mention = appMention({ channel: 'C0STEPS001', text: 'when does the ferry leave?' });
    await bot.deliverEvent(mention);
    const slack = bot.slack;
    const stream = await slack.waitFor(() =>
      slack.streams.find((candidate) => candidate.state === 'stopped'),
    );

    // The stream began with the first step, before the model had written anything.
    expect(stream.taskDisplayMode).toBe('plan');
    expect(stream.writes[0]).toMatchObject({
      method: 'chat.startStream',
      markdownText: '',
      chunks: [{ type: 'task_update', title: '🔎 searching: ferry timetable', status: 'in_progress' }],
    });
    const tasks = [...stream.tasks.values()];
    expect(tasks.map((task) => [task.title, task.status])).toEqual([
      ['🔎 searching: ferry timetable', 'complete'],
      ['🔎 searching: ferry prices', 'complete'],
    ]);
    expect(tasks[0]?.sources?.[0]).toEqual({
      type: 'url',
      url: 'https://example.org/ferry-timetable',
      text: 'About ferry timetable',
    });
    expect(stream.planTitle).toBe('Used 2 tools');
    // The answer is the same message's text, written once, with no status line in it.
    expect(stream.text).toMatch(/^The ferry leaves at 9 \[1\]\.\n\n\*\*Sources\*\*\n/);
    expect(stream.text).toMatch(/_🔧 used 2 tools_$/);
    expect(slack.callsTo('chat.update')).toEqual([]);
    expect(slack.callsTo('chat.postMessage')).toEqual([]);
  });

  it('where Slack will not stream, shows one compact line while the tools run, and only the answer at the end', async () => {
    bot = await startSlackUnderTest({
      mode: 'http',
      slackOptions: { nativeStreaming: 'not_allowed' },
      environment: { CHAT_MODEL: 'tools-model' },
    });
    bot.app.toolbox.replace('test', [slowTool('test_slow', 1_500), slowTool('test_slower', 1_500)]);
    bot.gateway.enqueue({
      toolCalls: [
        { name: 'test_slow', arguments: {} },
        { name: 'test_slower', arguments: {} },
      ],
    });
    bot.gateway.enqueue({ text: 'Both are done.' });
    const mention = appMention({ channel: 'C0STEPS002', text: 'run both' });
    await bot.deliverEvent(mention);
    const slack = bot.slack;
    const reply = await slack.waitFor(
      () =>
        slack
          .messages('C0STEPS002', String(mention.ts))
          .find((message) => message.text.startsWith('Both are done.')),
      15_000,
    );
    const shown = [...slack.callsTo('chat.postMessage'), ...slack.callsTo('chat.update')].map((call) =>
      JSON.stringify((call.arguments as { blocks?: unknown }).blocks ?? ''),
    );
    // One line at a time, the latest step with the count: never a line per step.
    expect(shown.some((blocks) => blocks.includes('_⚙ test\\\\_slower at work …_ · 2 tools'))).toBe(true);
    expect(
      shown.filter((blocks) => blocks.includes('test\\\\_slow at') && blocks.includes('test\\\\_slower at')),
    ).toEqual([]);
    expect(reply.text).toBe('Both are done.\n\n_🔧 used 2 tools_');
  });
});

describe('an acting tool asking while the stream is open', () => {
  /** Asks in a new thread of `channel` and waits for the acting tool's question. */
  async function askUntilQuestion(channel: string, text: string) {
    const mention = appMention({ channel, text });
    await bot?.deliverEvent(mention);
    const slack = bot?.slack;
    if (!slack) throw new Error('no bot');
    const threadTs = String(mention.ts);
    const question = await slack.waitFor(() =>
      slack.messages(channel, threadTs).find((message) => message.text.includes('wants to')),
    );
    return { slack, threadTs, question };
  }

  /**
   * Presses Approve and waits for the reply's stream to stop; checks that the reply had one stream,
   * stopped once with `answer` and its task cards `statuses`, that no other message holds the
   * answer, and that the question says it was approved.
   */
  async function approveAndCheckAnswer({
    channel,
    threadTs,
    question,
    answer,
    statuses,
  }: {
    channel: string;
    threadTs: string;
    question: StoredMessage;
    answer: string;
    statuses: string[];
  }) {
    const slack = bot?.slack;
    if (!slack || !bot) throw new Error('no bot');
    const approve = buttonsOf(question).find((button) => button.text.text === 'Approve');
    await bot.deliverInteraction(
      buttonClick({ actionId: approve?.action_id ?? '', messageTs: question.ts, channel, threadTs }),
    );
    const stopped = await slack.waitFor(
      () => slack.streams.find((candidate) => candidate.channel === channel && candidate.state === 'stopped'),
      10_000,
    );
    expect(slack.streams.filter((candidate) => candidate.channel === channel)).toHaveLength(1);
    expect(stopped.writes.filter((write) => write.method === 'chat.stopStream')).toHaveLength(1);
    expect(stopped.text).toBe(answer);
    expect([...stopped.tasks.values()].map((task) => task.status)).toEqual(statuses);
    expect(slack.callsTo('chat.update').map((call) => (call.arguments as { ts?: string }).ts)).not.toContain(
      stopped.ts,
    );
    const firstLine = answer.split('\n')[0] ?? answer;
    const thread = slack.messages(channel, threadTs);
    expect(thread.filter((message) => message.text.includes(firstLine)).map((message) => message.ts)).toEqual(
      [stopped.ts],
    );
    expect(thread.find((message) => message.ts === question.ts)?.text).toContain('approved by');
  }

  it('asks in a message of its own while the steps’ stream stays open, then the answer follows in it', async () => {
    bot = await startSlackUnderTest({ mode: 'http', environment: { CHAT_MODEL: 'tools-model' } });
    const calls: unknown[] = [];
    bot.app.toolbox.replace('test', [slowTool('test_look', 50), actingTool('test_write', calls)]);
    // A read-only step opens the stream; the acting one asks while it is open.
    bot.gateway.enqueue({ toolCalls: [{ name: 'test_look', arguments: {} }] });
    bot.gateway.enqueue({ toolCalls: [{ name: 'test_write', arguments: { text: 'hello' } }] });
    bot.gateway.enqueue({ text: 'I looked, then wrote hello.', chunkSize: 5, delayBetweenChunksMs: 40 });
    const { slack, threadTs, question } = await askUntilQuestion('C0STEPS003', 'look, then write hello');
    // The step shows that it waits, in the stream that is still open.
    const waiting = await slack.waitFor(() =>
      slack.streams.find(
        (candidate) =>
          candidate.channel === 'C0STEPS003' &&
          [...candidate.tasks.values()].some((task) => task.details === 'waiting for approval'),
      ),
    );
    expect(waiting.state).toBe('streaming');
    await approveAndCheckAnswer({
      channel: 'C0STEPS003',
      threadTs,
      question,
      answer: 'I looked, then wrote hello.\n\n_🔧 used 2 tools_',
      statuses: ['complete', 'complete'],
    });
    expect(calls).toEqual([{ text: 'hello' }]);
  });

  it('keeps the answer’s stream open while it asks, when the model wrote before calling the tool', async () => {
    bot = await startSlackUnderTest({ mode: 'http', environment: { CHAT_MODEL: 'tools-model' } });
    const calls: unknown[] = [];
    bot.app.toolbox.replace('test', [actingTool('test_write', calls)]);
    bot.gateway.enqueue({
      text: 'Let me write that down. ',
      toolCalls: [{ name: 'test_write', arguments: { text: 'hello' } }],
    });
    bot.gateway.enqueue({ text: 'I wrote hello.', chunkSize: 4, delayBetweenChunksMs: 40 });
    const { slack, threadTs, question } = await askUntilQuestion('C0STEPS004', 'write hello');
    // Long enough for a stream that the question ended to have been stopped.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const open = slack.streams.find((candidate) => candidate.channel === 'C0STEPS004');
    expect(open?.state).toBe('streaming');
    expect(open?.text).toBe('Let me write that down. ');
    await approveAndCheckAnswer({
      channel: 'C0STEPS004',
      threadTs,
      question,
      answer: 'Let me write that down. I wrote hello.\n\n_🔧 used 1 tool_',
      statuses: ['complete'],
    });
    expect(calls).toEqual([{ text: 'hello' }]);
  });
});
