import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runConsoleAdapter } from '../../adapters/console/console-adapter.ts';
import { type FakeGateway, startFakeGateway } from '../fakes/gateway/index.ts';
import { createManualScheduling, type ManualScheduling } from '../support/manual-scheduling.ts';
import { buildTestBot, type TestBot } from '../support/test-bot.ts';

/**
 * Scheduled runs on the terminal: one conversation, one screen. A run that comes due while a typed
 * line is being answered waits for that answer to end, then prints on lines of its own (issue 28).
 */
const apiKey = 'console-scheduled-runs-key-0123456789';

let fake: FakeGateway | undefined;
let bot: TestBot | undefined;
let scheduling: ManualScheduling | undefined;
afterEach(async () => {
  await scheduling?.stop();
  await bot?.close();
  await fake?.close();
});

/** A terminal session fed line by line, whose printed text the test reads as it grows. */
function startSession(services: ManualScheduling['services']) {
  const input = new PassThrough();
  const output = new PassThrough();
  let printed = '';
  output.on('data', (chunk) => {
    printed += String(chunk);
  });
  const running = runConsoleAdapter({
    services,
    input,
    output,
    userName: 'ada',
    outputDirectory: '/tmp/parley-console-scheduled-runs',
    isInteractive: false,
    workingDirectory: process.cwd(),
  });
  return {
    typeLine: (line: string) => input.write(`${line}\n`),
    printed: () => printed,
    async end() {
      input.end();
      await running;
    },
  };
}

describe('scheduled runs on the terminal', () => {
  it('holds a reminder that comes due while a reply streams until the reply has ended', async () => {
    fake = await startFakeGateway({ apiKey });
    bot = buildTestBot({ gatewayBaseUrl: fake.baseUrl, gatewayApiKey: apiKey });
    scheduling = createManualScheduling({
      app: bot.app,
      config: bot.config,
      services: bot.services,
      startMs: Date.parse('2025-06-02T06:00:00Z'),
    });
    await scheduling.start();
    const session = startSession(scheduling.services);

    session.typeLine('/remind in 1m stretch your legs');
    await vi.waitFor(() => expect(session.printed()).toMatch(/I will remind you “stretch your legs”/));

    const story =
      'Once upon a time a lighthouse keeper counted the ships that passed, one by one, until the fog lifted.';
    fake.enqueue({ text: story, chunkSize: 6, delayBetweenChunksMs: 60 });
    session.typeLine('tell me a story');
    await vi.waitFor(() => expect(session.printed()).toContain('Once upon'));
    expect(session.printed()).not.toContain(story);
    // The reminder comes due in the middle of the story.
    await scheduling.clock.advanceBy(61_000);
    await vi.waitFor(() => expect(session.printed()).toContain('⏰ Reminder: stretch your legs'), {
      timeout: 10_000,
    });
    const printed = session.printed();
    // The story is whole, and the reminder comes after it, on a line of its own.
    expect(printed).toContain(story);
    expect(printed.indexOf('⏰ Reminder')).toBeGreaterThan(printed.indexOf(story) + story.length);
    expect(printed).toMatch(/\n⏰ Reminder: stretch your legs\n/);

    // A line typed after the reminder is answered as usual, below it.
    fake.enqueue({ text: 'Done stretching?' });
    session.typeLine('I stretched');
    await vi.waitFor(() => expect(session.printed()).toContain('Done stretching?'));
    expect(session.printed().indexOf('Done stretching?')).toBeGreaterThan(
      session.printed().indexOf('⏰ Reminder'),
    );
    await session.end();
  }, 30_000);
});
