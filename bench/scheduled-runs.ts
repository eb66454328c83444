/**
 * 10,000 schedules in one SQLite store, all due in the same minute, on the timer wheel: how long
 * adding them takes, how long from their due time until every run has started and finished, and the
 * process's memory. Runs here post nothing (the runner records its start), so this measures the
 * scheduler, the store and the wheel, not the model. Usage: node bench/scheduled-runs.ts [count]
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { systemClock } from '../src/delivery/clock.ts';
import { createScheduleStore } from '../src/scheduling/schedule-store.ts';
import { createScheduler } from '../src/scheduling/scheduler.ts';
import { createWheelEngine } from '../src/scheduling/wheel-engine.ts';
import { openStore } from '../src/state/create-store.ts';
import { createInProcessLock } from '../src/state/keyed-lock.ts';

const count = Number(process.argv[2] ?? '10000');
const concurrency = Number(process.env.SCHEDULE_CONCURRENCY ?? '4');
const logger = pino({ level: 'warn' });
const folder = mkdtempSync(join(tmpdir(), 'parley-bench-schedules-'));
const store = openStore({ storeUrl: `sqlite://${join(folder, 'bench.sqlite')}`, logger });
const schedules = createScheduleStore({
  store: store.namespace('schedules'),
  lock: createInProcessLock(),
  logger,
});
const engine = createWheelEngine({
  store: schedules,
  clock: systemClock,
  logger,
  maxAttempts: 3,
  retryBaseMs: 60_000,
  concurrency,
});
const scheduler = createScheduler({
  store: schedules,
  engine,
  limits: {
    perPlace: count,
    perPerson: count,
    minIntervalMs: 0,
    graceMs: 15 * 60_000,
    schedulers: { policy: 'everyone', roleIds: [] },
  },
  logger,
});
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const rssBefore = process.memoryUsage().rss;
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
const dueAtMs = Math.ceil((Date.now() + 60_000) / 60_000) * 60_000;
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
process.stdout.write(
  `${count} schedules added in ${(addMs / 1000).toFixed(1)} s; waiting ${((dueAtMs - Date.now()) / 1000).toFixed(0)} s for their minute…\n`,
);
await allFinished;
const finishedAt = Date.now();
const lastStart = Math.max(...startedAt);
const firstStart = Math.min(...startedAt);
process.stdout.write(
  [
    `runs: ${count}, concurrency ${concurrency}`,
    `first run started ${firstStart - dueAtMs} ms after the due time; last ${lastStart - dueAtMs} ms after`,
    `all finished (each record advanced and written) ${finishedAt - dueAtMs} ms after the due time`,
    `memory: rss ${mb(rssBefore)} at start, ${mb(rssArmed)} with ${count} armed, ${mb(process.memoryUsage().rss)} after the runs`,
  ].join('\n') + '\n',
);
await scheduler.stop();
await store.close();
