import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeSearxng, startFakeSearxng } from '../fakes/searxng/fake-searxng.ts';
import { appMention } from '../fakes/slack/index.ts';
import { slowTool } from '../support/test-tools.ts';
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
