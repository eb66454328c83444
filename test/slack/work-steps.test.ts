import { afterEach, describe, expect, it } from 'vitest';
import type { Tool } from '../../src/tools/tool.ts';
import { startFakeSearxng } from '../fakes/searxng/fake-searxng.ts';
import { appMention } from '../fakes/slack/index.ts';
import { createTextPdf } from '../support/sample-documents.ts';
import { type SlackUnderTest, startSlackUnderTest } from './slack-under-test.ts';

/**
 * A reply's own work people can see on Slack (issue 27, item 7): reading the posted documents is a
 * step like a tool call, a `task_update` card in the native stream (the fake checks the documented
 * chunk shapes) and the compact status line where Slack will not stream. The plan's title counts
 * tools only when every step was one.
 */
let bot: SlackUnderTest | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});

/** A read-only tool of the test's own that takes `delayMs` to answer. */
function slowTool(name: string, delayMs: number): Tool {
  return {
    name,
    title: name,
    description: `The test tool ${name}.`,
    inputSchema: { type: 'object', properties: {} },
    annotations: { isReadOnly: true, isDestructive: false, isOpenWorld: false },
    source: 'test',
    priceNanos: 0,
    deadlineMs: 5_000,
    maxResultCharacters: 1_000,
    describeCall: () => `⚙ ${name} at work`,
    async run() {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      return { text: `${name} is done` };
    },
  };
}

describe('work steps on Slack', () => {
  it('streams reading a document as a task card before the answer', async () => {
    const under = await startSlackUnderTest({ mode: 'http' });
    bot = under;
    const report = under.slack.addFile({
      name: 'report.pdf',
      bytes: Buffer.from(await createTextPdf([['Total: 99']])),
      mimetype: 'application/pdf',
    });
    under.gateway.enqueue({ text: 'The total is 99.' });
    await under.deliverEvent(
      appMention({ channel: 'C0WORK0001', text: 'what is the total?', files: [report] }),
    );
    const stream = await under.slack.waitFor(() =>
      under.slack.streams.find((entry) => entry.state === 'stopped'),
    );

    expect(stream.writes[0]).toMatchObject({
      method: 'chat.startStream',
      markdownText: '',
      chunks: [{ type: 'task_update', title: '📄 reading: report.pdf', status: 'in_progress' }],
    });
    expect([...stream.tasks.values()].map((task) => [task.title, task.status])).toEqual([
      ['📄 reading: report.pdf', 'complete'],
    ]);
    expect(stream.text).toBe('The total is 99.');
  });

  it('ends the card as an error, saying why, when no document could be read', async () => {
    const under = await startSlackUnderTest({ mode: 'http' });
    bot = under;
    const archive = under.slack.addFile({
      name: 'backup.zip',
      bytes: Buffer.from('PK\u0005\u0006'.padEnd(22, '\u0000')),
      mimetype: 'application/zip',
    });
    under.gateway.enqueue({ text: 'I could not open it.' });
    await under.deliverEvent(appMention({ channel: 'C0WORK0002', text: 'open this', files: [archive] }));
    const stream = await under.slack.waitFor(() =>
      under.slack.streams.find((entry) => entry.state === 'stopped'),
    );

    const [card] = [...stream.tasks.values()];
    expect(card).toMatchObject({ title: '📄 reading: backup.zip', status: 'error' });
    expect(card?.details).toContain('I cannot read backup.zip');
    expect(stream.text).toMatch(/^I could not open it\.\n\n_I cannot read backup\.zip/);
  });

  it('counts steps, not tools, in the plan when a document was read before a tool ran', async () => {
    const under = await startSlackUnderTest({ mode: 'http', environment: { CHAT_MODEL: 'tools-model' } });
    bot = under;
    under.app.toolbox.replace('test', [slowTool('test_slow', 300)]);
    const notes = under.slack.addFile({
      name: 'notes.txt',
      bytes: Buffer.from('Ferry at 9.'),
      mimetype: 'text/plain',
    });
    under.gateway.enqueue({ toolCalls: [{ name: 'test_slow', arguments: {} }] });
    under.gateway.enqueue({ text: 'At 9.' });
    await under.deliverEvent(appMention({ channel: 'C0WORK0003', text: 'when?', files: [notes] }));
    const stream = await under.slack.waitFor(() =>
      under.slack.streams.find((entry) => entry.state === 'stopped'),
    );

    expect([...stream.tasks.values()].map((task) => [task.title, task.status])).toEqual([
      ['📄 reading: notes.txt', 'complete'],
      ['⚙ test_slow at work', 'complete'],
    ]);
    expect(stream.planTitle).toBe('Done: 2 steps');
    expect(stream.text).toBe('At 9.\n\n_🔧 used 1 tool_');
  });

  it('where Slack will not stream, shows the steps in one compact line counted as steps', async () => {
    const under = await startSlackUnderTest({
      mode: 'http',
      slackOptions: { nativeStreaming: 'not_allowed' },
      environment: { CHAT_MODEL: 'tools-model' },
    });
    bot = under;
    under.app.toolbox.replace('test', [slowTool('test_slow', 1_500)]);
    const notes = under.slack.addFile({
      name: 'notes.txt',
      bytes: Buffer.from('Ferry at 9.'),
      mimetype: 'text/plain',
    });
    under.gateway.enqueue({ toolCalls: [{ name: 'test_slow', arguments: {} }] });
    under.gateway.enqueue({ text: 'At 9.' });
    const mention = appMention({ channel: 'C0WORK0004', text: 'when?', files: [notes] });
    await under.deliverEvent(mention);
    const slack = under.slack;
    const reply = await slack.waitFor(
      () =>
        slack.messages('C0WORK0004', String(mention.ts)).find((message) => message.text.startsWith('At 9.')),
      15_000,
    );
    const shown = [...slack.callsTo('chat.postMessage'), ...slack.callsTo('chat.update')].map((call) =>
      JSON.stringify((call.arguments as { blocks?: unknown }).blocks ?? ''),
    );

    expect(shown.some((blocks) => blocks.includes('_⚙ test\\\\_slow at work …_ · 2 steps'))).toBe(true);
    expect(reply.text).toBe('At 9.\n\n_🔧 used 1 tool_');
  });

  it('streams a search-first step, for a model without tools, with the pages it found', async () => {
    const searxng = await startFakeSearxng();
    try {
      searxng.setResults('tide Brest', [
        { title: 'Tide times Brest', url: 'https://tides.example/brest', content: 'High tide 14:05.' },
      ]);
      const under = await startSlackUnderTest({
        mode: 'http',
        environment: { SEARCH_URL: searxng.url, CHAT_MODEL: 'chat-model' },
      });
      bot = under;
      under.gateway.enqueue({ text: JSON.stringify({ shouldSearch: true, query: 'tide Brest' }) });
      under.gateway.enqueue({ text: 'At 14:05 [1].' });
      await under.deliverEvent(appMention({ channel: 'C0WORK0005', text: 'when is high tide in Brest?' }));
      const stream = await under.slack.waitFor(() =>
        under.slack.streams.find((entry) => entry.state === 'stopped'),
      );

      expect(stream.writes[0]).toMatchObject({
        method: 'chat.startStream',
        chunks: [{ type: 'task_update', title: '🔎 searching: tide Brest', status: 'in_progress' }],
      });
      expect([...stream.tasks.values()]).toEqual([
        {
          type: 'task_update',
          id: 'search-first',
          title: '🔎 searching: tide Brest',
          status: 'complete',
          sources: [{ type: 'url', url: 'https://tides.example/brest', text: 'Tide times Brest' }],
        },
      ]);
      expect(stream.text).toMatch(/^At 14:05 \[1\]\.\n\n\*\*Sources\*\*/);
    } finally {
      await searxng.close();
    }
  });

  it('draws in a thread with one task card for the drawing, above the images', async () => {
    const under = await startSlackUnderTest({ mode: 'http' });
    bot = under;
    const root = under.slack.addMessage({
      channel: 'C0WORK0006',
      user: 'U0PERSON01',
      text: 'ideas for the poster',
    });
    await under.deliverEvent(
      appMention({ channel: 'C0WORK0006', threadTs: root.ts, text: '/imagine a red kite' }),
    );
    const upload = await under.slack.waitFor(() => under.slack.uploadedFiles[0]);
    const stream = await under.slack.waitFor(() =>
      under.slack.streams.find((entry) => entry.state === 'stopped'),
    );

    expect(upload).toBeDefined();
    expect(stream).toMatchObject({ channel: 'C0WORK0006', threadTs: root.ts, text: '' });
    expect(stream.writes[0]).toMatchObject({
      method: 'chat.startStream',
      chunks: [{ type: 'task_update', title: '🎨 drawing 1 image', status: 'in_progress' }],
    });
    expect([...stream.tasks.values()].map((task) => [task.title, task.status])).toEqual([
      ['🎨 drawing 1 image', 'complete'],
    ]);
    // The card stands in for the progress line: no "drawing…" message to replace.
    expect(JSON.stringify(under.slack.callsTo('chat.postMessage'))).not.toContain('drawing');
  });

  it('ends the drawing’s card in error, saying why, when the image model fails', async () => {
    const under = await startSlackUnderTest({ mode: 'http' });
    bot = under;
    // A 400 is not retried: the drawing fails at once.
    under.gateway.enqueue({ endpoint: 'images', error: { status: 400 } });
    const root = under.slack.addMessage({ channel: 'C0WORK0007', user: 'U0PERSON01', text: 'a poster' });
    await under.deliverEvent(
      appMention({ channel: 'C0WORK0007', threadTs: root.ts, text: '/imagine a red kite' }),
    );
    const stream = await under.slack.waitFor(() =>
      under.slack.streams.find((entry) => entry.state === 'stopped'),
    );

    const [card] = [...stream.tasks.values()];
    expect(card).toMatchObject({ title: '🎨 drawing 1 image', status: 'error' });
    expect(card?.details).toBeTruthy();
    expect(under.slack.uploadedFiles).toEqual([]);
  });

  it('summarizes a thread with one task card while it reads and summarizes', async () => {
    const under = await startSlackUnderTest({ mode: 'http' });
    bot = under;
    const root = under.slack.addMessage({
      channel: 'C0WORK0008',
      user: 'U0PERSON01',
      text: 'Ship on Friday?',
    });
    under.slack.addMessage({
      channel: 'C0WORK0008',
      user: 'U0PERSON01',
      text: 'Yes, Friday.',
      threadTs: root.ts,
    });
    under.gateway.enqueue({
      text: JSON.stringify({
        title: 'Shipping',
        tldr: 'We ship on Friday.',
        keyPoints: ['Friday it is'],
        decisions: ['Ship on Friday'],
        actionItems: [],
        openQuestions: [],
      }),
    });
    await under.deliverEvent(appMention({ channel: 'C0WORK0008', threadTs: root.ts, text: 'summarize' }));
    const stream = await under.slack.waitFor(() =>
      under.slack.streams.find((entry) => entry.state === 'stopped'),
    );
    const summary = await under.slack.waitFor(() =>
      under.slack
        .messages('C0WORK0008', root.ts)
        .find((message) => JSON.stringify(message.blocks ?? []).includes('We ship on Friday.')),
    );

    expect(summary).toBeDefined();
    expect([...stream.tasks.values()].map((task) => [task.title, task.status])).toEqual([
      ['📝 summarizing the last 50 messages', 'complete'],
    ]);
    expect(JSON.stringify(under.slack.callsTo('chat.postMessage'))).not.toContain('reading the last');
  });
});
