/**
 * 10,000 schedules in one SQLite store, all due in the same minute, on the timer wheel (issue 28):
 * how long adding them takes, how long from their due time until every run has started and
 * finished, the process's memory, and what the burst does to ordinary chat replies answered by the
 * same process at the same time.
 *
 * The bot is the real app (config from an environment, the SQLite store, its scheduler and timer
 * wheel, the conversation engine, the gateway client and spend guard) against the fake gateway in
 * a child process, so the gateway's own work does not share this event loop. The runs record their
 * start and return, as the existing measurement did: what is measured is the scheduler, the store
 * and the wheel, not 10,000 model replies. The chat replies are real ones (streamed by the fake at
 * its default pace), first without the burst, then while it runs, in `CHAT_CONVERSATIONS`
 * conversations each asking again as soon as it is answered; each reply's time to its first text
 * and to its end on the surface is kept.
 *
 * Usage: node bench/scheduled-runs.ts [count]  (SCHEDULE_CONCURRENCY, CHAT_CONVERSATIONS)
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConversationKey } from '../src/conversation/turn.ts';
import { createRecordingSurface } from '../test/support/recording-surface.ts';
import { buildTestBot } from '../test/support/test-bot.ts';
import { percentile } from './statistics.ts';

const count = Number(process.argv[2] ?? '10000');
const concurrency = process.env.SCHEDULE_CONCURRENCY ?? '4';
const conversationCount = Number(process.env.CHAT_CONVERSATIONS ?? '4');
const baselineRounds = 10;
const apiKey = 'bench-gateway-key-0123456789';
const write = (text: string) => process.stdout.write(text);
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

// The fake gateway in its own process, on a free port.
const port = await new Promise<number>((resolve) => {
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const address = probe.address();
    probe.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
  });
});
const gatewayProcess = spawn(
  process.execPath,
  [
    join(import.meta.dirname, '..', 'test', 'fakes', 'gateway', 'main.ts'),
    '--port',
    String(port),
    '--api-key',
    apiKey,
  ],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
process.once('exit', () => gatewayProcess.kill('SIGKILL'));
let gatewayOutput = '';
gatewayProcess.stdout.setEncoding('utf8');
gatewayProcess.stdout.on('data', (chunk: string) => {
  gatewayOutput += chunk;
});
while (!gatewayOutput.includes('listening on')) {
  if (gatewayProcess.exitCode !== null) throw new Error(`the fake gateway exited: ${gatewayOutput}`);
  await new Promise((resolve) => setTimeout(resolve, 50));
}

const folder = mkdtempSync(join(tmpdir(), 'parley-bench-schedules-'));
const bot = buildTestBot({
  gatewayBaseUrl: `http://127.0.0.1:${port}/api/v1`,
  gatewayApiKey: apiKey,
  environment: {
    STORE_URL: `sqlite://${join(folder, 'bench.sqlite')}`,
    SCHEDULE_CONCURRENCY: concurrency,
    SCHEDULES_PER_CHANNEL: String(count),
    SCHEDULES_PER_PERSON: String(count),
    LOG_LEVEL: 'warn',
  },
});
const scheduler = bot.app.scheduler;
if (scheduler === undefined) throw new Error('the app opened no scheduler on SQLite');

interface ReplyTiming {
  readonly startedAtMs: number;
  readonly firstTextMs: number;
  readonly finishMs: number;
}

/** One chat reply through the engine, as a person's message would be answered. */
async function timedReply(conversationKey: ConversationKey, round: number): Promise<ReplyTiming> {
  const surface = createRecordingSurface({ minEditIntervalMs: 250, maxMessageLength: 4_000 });
  const startedAtMs = Date.now();
  await bot.app.engine.reply({
    turn: {
      conversationKey,
      author: { id: 'ada', name: 'Ada' },
      actor: { id: 'ada', name: 'Ada', roleIds: [], isAdmin: true, context: 'server' },
      text: `Round ${round}: what are the ferry times to the island on Saturday, and is there a café by the harbour?`,
      images: [],
    },
    surface,
  });
  const finishedAtMs = Date.now();
  const firstCall = surface.calls.find((call) => call.text.trim() !== '');
  return {
    startedAtMs,
    firstTextMs: (firstCall?.startedAtMs ?? finishedAtMs) - startedAtMs,
    finishMs: finishedAtMs - startedAtMs,
  };
}

/** Each conversation asks again as soon as it is answered, until `shouldGoOn` says stop. */
async function chatWhile(shouldGoOn: (round: number) => boolean, label: string): Promise<ReplyTiming[]> {
  const timings: ReplyTiming[] = [];
  await Promise.all(
    Array.from({ length: conversationCount }, async (_, index) => {
      const key: ConversationKey = `discord:bench-guild:${label}-chat-${index}`;
      for (let round = 0; shouldGoOn(round); round += 1) timings.push(await timedReply(key, round));
    }),
  );
  return timings;
}

const describeTimings = (timings: readonly ReplyTiming[]) => {
  const line = (values: number[]) =>
    `p50 ${percentile(values, 0.5)} ms, p95 ${percentile(values, 0.95)} ms, max ${Math.max(...values)} ms`;
  return [
    `  ${timings.length} replies`,
    `  first text: ${line(timings.map((timing) => timing.firstTextMs))}`,
    `  finish:     ${line(timings.map((timing) => timing.finishMs))}`,
  ].join('\n');
};

write(
  `load average at start: ${loadavg()
    .map((value) => value.toFixed(1))
    .join(' ')}\n`,
);
const rssBefore = process.memoryUsage().rss;
// Warm the path (first requests open connections and compile code), then the quiet baseline.
await chatWhile((round) => round < 2, 'warm');
const baseline = await chatWhile((round) => round < baselineRounds, 'quiet');

const startedAt: number[] = [];
let finishedCount = 0;
let resolveAll: () => void = () => {};
const allFinished = new Promise<void>((resolve) => {
  resolveAll = resolve;
});
await scheduler.start({
  async run() {
    startedAt.push(Date.now());
    await new Promise((resolve) => setImmediate(resolve));
    finishedCount += 1;
    if (finishedCount === count) resolveAll();
    return { status: 'ran' };
  },
  async tellSkipped() {},
});
const addStartedAt = performance.now();
// Every schedule due at the same minute, far enough ahead that adding them all comes first.
const dueAtMs = Math.ceil((Date.now() + 90_000) / 60_000) * 60_000;
for (let index = 0; index < count; index += 1) {
  const made = await scheduler.create({
    kind: 'place',
    conversationKey: `discord:guild-${index % 100}:channel-${index}`,
    owner: { id: `user-${index}`, name: `User ${index}`, roleIds: [], isAdmin: true, context: 'server' },
    what: `digest ${index}`,
    whenText: 'bench',
    timing: { kind: 'once', atMs: dueAtMs },
    timeZone: 'UTC',
  });
  if (!('record' in made)) throw new Error(made.problem);
}
const addMs = performance.now() - addStartedAt;
const rssArmed = process.memoryUsage().rss;
write(
  `${count} schedules added in ${(addMs / 1000).toFixed(1)} s; waiting ${((dueAtMs - Date.now()) / 1000).toFixed(0)} s for their minute…\n`,
);
if (Date.now() > dueAtMs - 2_000)
  throw new Error('adding took past the due minute; run with fewer schedules');
await new Promise((resolve) => setTimeout(resolve, dueAtMs - 1_000 - Date.now()));
// Chat from a second before the minute until every run has finished.
let isBurstOver = false;
const duringChat = chatWhile(() => !isBurstOver, 'busy');
await allFinished;
const finishedAt = Date.now();
isBurstOver = true;
const during = (await duringChat).filter(
  (timing) => timing.startedAtMs + timing.finishMs >= dueAtMs && timing.startedAtMs <= finishedAt,
);
const lastStart = Math.max(...startedAt);
const firstStart = Math.min(...startedAt);
write(
  `${[
    `runs: ${count}, concurrency ${concurrency}`,
    `first run started ${firstStart - dueAtMs} ms after the due time; last ${lastStart - dueAtMs} ms after`,
    `all finished (each record advanced and written) ${finishedAt - dueAtMs} ms after the due time`,
    `memory: rss ${mb(rssBefore)} at start, ${mb(rssArmed)} with ${count} armed, ${mb(process.memoryUsage().rss)} after the runs`,
    `chat replies in ${conversationCount} conversations, without the burst:`,
    describeTimings(baseline),
    'the same replies while the runs were starting (overlapping the due time to the last run’s end):',
    describeTimings(during),
    `load average at the end: ${loadavg()
      .map((value) => value.toFixed(1))
      .join(' ')}`,
  ].join('\n')}\n`,
);
await scheduler.stop();
await bot.close();
gatewayProcess.kill('SIGTERM');
await once(gatewayProcess, 'exit');
