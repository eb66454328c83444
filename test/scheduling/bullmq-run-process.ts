/**
 * One parley-like process for the multi-process proof: the real scheduler on the BullMQ engine over
 * a real Redis, with a runner that records in Redis when each run starts and ends and takes
 * RUN_MS to do it (long enough to be killed in the middle). Started by bullmq-processes.test.ts.
 */
import { createClient } from '@redis/client';
import pino from 'pino';
import { createBullmqEngine } from '../../src/scheduling/bullmq-engine.ts';
import { createScheduleStore } from '../../src/scheduling/schedule-store.ts';
import { createScheduler } from '../../src/scheduling/scheduler.ts';
import { openStore } from '../../src/state/create-store.ts';
import { createInProcessLock } from '../../src/state/keyed-lock.ts';

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = process.env.TEST_PREFIX ?? 'parley-test';
const runMs = Number(process.env.RUN_MS ?? '1500');
const name = process.env.PROCESS_NAME ?? String(process.pid);

const logger = pino({ level: 'warn' });
const store = openStore({ storeUrl: redisUrl, logger });
const schedules = createScheduleStore({
  store: store.namespace(prefix),
  lock: createInProcessLock(),
  logger,
});
const recorder = createClient({ url: redisUrl });
await recorder.connect();
const scheduler = createScheduler({
  store: schedules,
  engine: createBullmqEngine({
    redisUrl,
    prefix,
    logger,
    maxAttempts: 3,
    retryBaseMs: 500,
    concurrency: 2,
    timings: { lockDurationMs: 2_000, stalledIntervalMs: 1_000 },
  }),
  limits: {
    perPlace: 1_000,
    perPerson: 1_000,
    minIntervalMs: 0,
    graceMs: 60_000,
    schedulers: { policy: 'everyone', roleIds: [] },
  },
  logger,
});
await scheduler.start({
  async run({ record, dueAtMs }) {
    const run = `${record.id}@${dueAtMs}`;
    await recorder.rPush(`${prefix}:started`, `${run} ${name}`);
    await new Promise((resolve) => setTimeout(resolve, runMs));
    await recorder.rPush(`${prefix}:completed`, `${run} ${name}`);
    return { status: 'ran' };
  },
  async tellSkipped({ record, dueAtMs }) {
    await recorder.rPush(`${prefix}:skipped`, `${record.id}@${dueAtMs} ${name}`);
  },
});
process.stdout.write('ready\n');
process.on('SIGTERM', () => {
  void scheduler.stop().then(async () => {
    recorder.destroy();
    await store.close();
    process.exit(0);
  });
});
