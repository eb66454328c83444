import { afterEach, describe, expect, it } from 'vitest';
import { createConsoleSurface } from '../../adapters/console/console-surface.ts';
import { createStreamingWriter } from '../../src/delivery/streaming-writer.ts';
import { createToolProgress } from '../../src/delivery/tool-progress.ts';
import { startConsoleUnderTest } from '../support/console-under-test.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';
import { createRecordingSurface } from '../support/recording-surface.ts';
import { slowTool } from '../support/test-tools.ts';

/**
 * Tool steps people can see (issue 25) where the platform has no task cards: a line per step above
 * the answer on Discord while it runs, gone into the "used N tools" note at the end; dimmed lines
 * in the terminal. (Slack's task cards: test/slack/tool-steps.test.ts.)
 */
let under: DiscordUnderTest | undefined;
afterEach(async () => {
  await under?.close();
  under = undefined;
});

describe('tool steps on Discord', () => {
  it('shows a line per step above the answer while it runs, within the edit budget, and only the answer and its note at the end', async () => {
    under = await startDiscordUnderTest({ CHAT_MODEL: 'tools-model' });
    const subject = under;
    subject.app.toolbox.replace('test', [slowTool('test_slow', 1_500), slowTool('test_slower', 1_500)]);
    subject.gateway.enqueue({
      toolCalls: [
        { name: 'test_slow', arguments: {} },
        { name: 'test_slower', arguments: {} },
      ],
    });
    subject.gateway.enqueue({
      text: 'Both are done, and here is more.',
      chunkSize: 6,
      delayBetweenChunksMs: 250,
    });
    subject.discord.sendUserMessage({
      channelId: subject.generalChannelId,
      content: 'run both',
      mentionsBot: true,
    });
    const reply = await subject.discord.waitFor(
      () =>
        subject
          .botMessages(subject.generalChannelId)
          .find((message) => message.content.includes('used 2 tools')),
      { timeoutMs: 15_000 },
    );
    const versions = reply.revisions.map((revision) => revision.content);
    const first = '_⚙ test\\_slow at work';
    const second = '_⚙ test\\_slower at work';
    // While the second tool ran, both steps had their lines, the first one done.
    expect(versions).toContain(`${first} ✓_\n${second} …_`);
    // Above the answer as it streamed.
    expect(versions.some((version) => version.startsWith(`${first} ✓_\n${second} ✓_\n\nBoth`))).toBe(true);
    expect(reply.content).toBe('Both are done, and here is more.\n\n_🔧 used 2 tools_');
    // Each in-between edit waited for the one before by the channel's edit interval (1 s); the final
    // edit goes at once, within Discord's own limit of 5 edits per 5 s per channel (issue 24).
    const gaps = reply.revisions
      .slice(1)
      .map((revision, index) => revision.atMs - (reply.revisions[index]?.atMs ?? 0));
    expect(Math.min(...gaps.slice(0, -1))).toBeGreaterThanOrEqual(950);
    // The first revision is the post itself; the limit counts edits.
    const times = reply.revisions.slice(1).map((revision) => revision.atMs);
    const mostInFiveSeconds = Math.max(
      ...times.map((start) => times.filter((at) => at >= start && at < start + 5_000).length),
    );
    expect(mostInFiveSeconds).toBeLessThanOrEqual(5);
  });
});

describe('tool steps in the terminal', () => {
  it('prints each step on its own line as it starts and ends, then the answer', async () => {
    const bot = await startConsoleUnderTest({ CHAT_MODEL: 'tools-model' });
    try {
      bot.app.toolbox.replace('test', [slowTool('test_quick', 10)]);
      bot.fake.enqueue({ toolCalls: [{ name: 'test_quick', arguments: {} }] });
      bot.fake.enqueue({ text: 'Quick is done.' });
      const printed = await bot.type('run it');
      expect(printed).toContain('· ⚙ test_quick at work\n✓ ⚙ test_quick at work\nQuick is done.');
      expect(printed).toContain('_🔧 used 1 tool_');
    } finally {
      await bot.close();
    }
  });

  it('dims the step lines when a person watches the terminal', async () => {
    let printed = '';
    const surface = createConsoleSurface({
      write: (text) => {
        printed += text;
      },
      outputDirectory: '/tmp',
      isInteractive: true,
    });
    await surface.showToolStep?.({ id: 'call_1', title: '🔎 searching: tides', status: 'running' });
    await surface.showToolStep?.({
      id: 'call_1',
      title: '🔎 searching: tides',
      status: 'error',
      detail: 'timed out',
    });
    expect(printed).toBe(
      '\x1b[2m· 🔎 searching: tides\x1b[22m\n\x1b[2m✗ 🔎 searching: tides: timed out\x1b[22m\n',
    );
  });
});

describe('step lines in a reply’s text', () => {
  it('keep room in the message being written and are never part of its final text', async () => {
    const surface = createRecordingSurface({ maxMessageLength: 60, minEditIntervalMs: 0 });
    const writer = createStreamingWriter({ surface });
    const progress = createToolProgress();
    progress.update({ id: 'a', title: 'search_*tides*', status: 'running' });
    writer.showProgress(progress.render('each'));
    await new Promise((resolve) => setTimeout(resolve, 10));
    progress.update({ id: 'a', title: 'search_*tides*', status: 'complete' });
    writer.showProgress(progress.render('each'));
    writer.append('x'.repeat(70));
    await new Promise((resolve) => setTimeout(resolve, 10));
    const delivered = await writer.finish({ notes: ['🔧 used 1 tool'] });

    const shown = surface.calls.map((call) => call.text);
    // The model's `_` and `*` cannot end the italics early.
    expect(shown[0]).toBe('_search\\_\\*tides\\* …_');
    // The line keeps its room above the text of the message being written (the second, once the
    // first was full); no message ever passed the limit.
    expect(shown).toContain(`_search\\_\\*tides\\* ✓_\n\n${'x'.repeat(33)}`);
    expect(shown.every((text) => text.length <= 60)).toBe(true);
    expect(delivered.messages.map((message) => surface.messageTexts.get(message.id))).toEqual([
      'x'.repeat(37),
      `${'x'.repeat(33)}\n\n_🔧 used 1 tool_`,
    ]);
  });

  it('render the latest step alone, with the count, where a surface asks for one line', () => {
    const progress = createToolProgress();
    progress.update({ id: 'a', title: 'first', status: 'complete' });
    progress.update({ id: 'b', title: 'second', status: 'not-run', detail: 'denied by Ada' });
    expect(progress.render('latest')).toBe('_second ⊘ denied by Ada_ · 2 tools');
    expect(progress.render('each')).toBe('_first ✓_\n_second ⊘ denied by Ada_');
  });
});
