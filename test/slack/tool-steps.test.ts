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

  /** The markdown block of a message: what Slack renders as Markdown. */
  function markdownOf(message: StoredMessage): string {
    const block = (message.blocks ?? []).find(
      (candidate): candidate is { type: 'markdown'; text: string } =>
        (candidate as { type?: string }).type === 'markdown',
    );
    return block?.text ?? '';
  }

  /**
   * Presses Approve and waits for the answer `answer`, in a message of its own after the question;
   * checks that the question says it was approved.
   */
  async function approveAndCheckAnswer({
    channel,
    threadTs,
    question,
    answer,
  }: {
    channel: string;
    threadTs: string;
    question: StoredMessage;
    answer: string;
  }) {
    const slack = bot?.slack;
    if (!slack || !bot) throw new Error('no bot');
    const approve = buttonsOf(question).find((button) => button.text.text === 'Approve');
    await bot.deliverInteraction(
      buttonClick({ actionId: approve?.action_id ?? '', messageTs: question.ts, channel, threadTs }),
    );
    const answered = await slack.waitFor(
      () => slack.messages(channel, threadTs).find((message) => message.text.includes(answer)),
      10_000,
    );
    expect(Number(answered.ts)).toBeGreaterThan(Number(question.ts));
    await slack.waitFor(() =>
      slack
        .messages(channel, threadTs)
        .find((message) => message.ts === question.ts && message.text.includes('approved by')),
    );
  }

  it('asks in a message of its own while the steps’ stream stays open, ends the reply, and Approve answers anew', async () => {
    bot = await startSlackUnderTest({ mode: 'http', environment: { CHAT_MODEL: 'tools-model' } });
    const calls: unknown[] = [];
    bot.app.toolbox.replace('test', [slowTool('test_look', 50), actingTool('test_write', calls)]);
    // A read-only step opens the stream; the acting one asks while it is open.
    bot.gateway.enqueue({ toolCalls: [{ name: 'test_look', arguments: {} }] });
    bot.gateway.enqueue({ toolCalls: [{ name: 'test_write', arguments: { text: 'hello' } }] });
    bot.gateway.enqueue({
      text: 'I looked, and asked you before writing.',
      chunkSize: 5,
      delayBetweenChunksMs: 40,
    });
    const { slack, threadTs, question } = await askUntilQuestion('C0STEPS003', 'look, then write hello');
    // The reply goes on in the stream that was open, and ends there without waiting for the answer.
    const stopped = await slack.waitFor(
      () =>
        slack.streams.find(
          (candidate) => candidate.channel === 'C0STEPS003' && candidate.state === 'stopped',
        ),
      10_000,
    );
    expect(slack.streams.filter((candidate) => candidate.channel === 'C0STEPS003')).toHaveLength(1);
    expect(stopped.text).toBe('I looked, and asked you before writing.\n\n_🔧 used 1 tool_');
    expect([...stopped.tasks.values()].map((task) => [task.status, task.details])).toEqual([
      ['complete', undefined],
      ['error', 'waiting for approval'],
    ]);
    expect(calls).toEqual([]);
    bot.gateway.enqueue({ text: 'I wrote hello.' });
    await approveAndCheckAnswer({ channel: 'C0STEPS003', threadTs, question, answer: 'I wrote hello.' });
    expect(calls).toEqual([{ text: 'hello' }]);
  });

  it('shows 2,000 characters of arguments with backticks and Markdown whole, in a code block', async () => {
    bot = await startSlackUnderTest({ mode: 'http', environment: { CHAT_MODEL: 'tools-model' } });
    const calls: unknown[] = [];
    bot.app.toolbox.replace('test', [actingTool('test_write', calls)]);
    const raw = `{"text":"✅ **read-only preview, nothing is sent** \`x\` ${'z'.repeat(1_950)}", "to": "someone@example.test"}`;
    expect(raw.length).toBeGreaterThan(2_000);
    bot.gateway.enqueue({ toolCalls: [{ name: 'test_write', arguments: raw }] });
    bot.gateway.enqueue({ text: 'Asked you.' });
    const { slack, threadTs, question } = await askUntilQuestion('C0STEPS004', 'write the long one');
    // Slack's code block shows its text literally ("Formatting text for app surfaces", code blocks).
    expect(markdownOf(question)).toContain(`\n\`\`\`\n${raw}\n\`\`\`\n`);
    expect(markdownOf(question).split('```')).toHaveLength(3);
    expect(markdownOf(question)).not.toContain('(cut');
    await slack.waitFor(() =>
      slack.messages('C0STEPS004', threadTs).find((message) => message.text.includes('Asked you.')),
    );
    bot.gateway.enqueue({ text: 'Sent it.' });
    await approveAndCheckAnswer({ channel: 'C0STEPS004', threadTs, question, answer: 'Sent it.' });
    expect(calls).toEqual([JSON.parse(raw)]);
  });
});
