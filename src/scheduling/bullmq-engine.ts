import { createClient } from '@redis/client';
import { type Job, Queue, type RepeatStrategy, Worker } from 'bullmq';
import type { Logger } from '../log.ts';
import { runScheduledBy, type TraceCarrier, traceCarrierOfActiveSpan } from '../tracing/trace-handover.ts';
import type { DueRun, DueVerdict, ScheduleEngine } from './schedule-engine.ts';
import { cronIn } from './schedule-timing.ts';

/** What a run's job carries: the schedule, and for a single run the time it was due. */
interface RunJobData {
  readonly scheduleId: string;
  readonly dueAtMs?: number;
  /** With tracing on, the W3C trace context of the command that armed it: its runs link to it. */
  readonly traceContext?: TraceCarrier;
}

/** BullMQ's job ids may not contain ":"; schedule ids are letters and digits. */
const onceJobId = (scheduleId: string, atMs: number) => `once-${scheduleId}-${atMs}`;

/**
 * Job schedulers compute their next run with croner, like the timer wheel, so both engines agree on
 * DST gaps and repeated hours (BullMQ's own default reads patterns with cron-parser).
 */
const croner: RepeatStrategy = (millis, options) => {
  if (options.pattern === undefined) return undefined;
  return cronIn(options.pattern, options.tz ?? 'UTC')
    .nextRun(new Date(millis))
    ?.getTime();
};

/** How long a run's lock lasts without renewal, and so how soon another process takes over a dead one's run. */
export interface BullmqTimings {
  /** A live worker renews its lock every half of this; a killed one's run is stalled after it. */
  readonly lockDurationMs: number;
  /** How often workers look for stalled runs (those whose lock lapsed) and put them back. */
  readonly stalledIntervalMs: number;
}

export const defaultBullmqTimings: BullmqTimings = { lockDurationMs: 30_000, stalledIntervalMs: 15_000 };

/**
 * The engine of several processes on one Redis: each repeating schedule is a BullMQ job scheduler
 * and each single run a delayed job, so every process's worker may take a run and BullMQ hands each
 * to one of them. A process killed mid-run stops renewing its lock; the stalled-job check of a live
 * process puts the run back and another worker does it (BullMQ "stalled jobs"). A run that finished
 * is marked done in Redis before its job is acknowledged, so a run whose process died between the two
 * is not done twice. Runs missed while no process ran wait as delayed jobs and come due at start.
 */
export function createBullmqEngine({
  redisUrl,
  prefix,
  queueName = 'schedules',
  logger,
  maxAttempts,
  retryBaseMs,
  concurrency,
  timings = defaultBullmqTimings,
}: {
  redisUrl: string;
  /** Keeps this bot's queues apart from others on the same Redis (BullMQ's key prefix). */
  prefix: string;
  queueName?: string;
  logger: Logger;
  maxAttempts: number;
  retryBaseMs: number;
  concurrency: number;
  timings?: BullmqTimings;
}): ScheduleEngine {
  const log = logger.child({ component: 'bullmq-engine' });
  const queueClient = createClient({ url: redisUrl });
  const workerClient = createClient({ url: redisUrl });
  for (const client of [queueClient, workerClient])
    client.on('error', (error: unknown) => log.warn({ err: error }, 'scheduling: Redis connection error'));
  let queue: Queue<RunJobData> | undefined;
  let worker: Worker<RunJobData> | undefined;
  const doneKey = (jobId: string) => `${prefix}:${queueName}:run-done:${jobId}`;
  const jobOptions = {
    attempts: maxAttempts,
    backoff: { type: 'exponential', delay: retryBaseMs },
    removeOnComplete: { count: 1_000 },
    removeOnFail: { count: 1_000 },
  } as const;

  const openQueue = async () => {
    if (queue !== undefined) return queue;
    if (!queueClient.isOpen) await queueClient.connect();
    queue = new Queue<RunJobData>(queueName, {
      connection: queueClient,
      prefix,
      settings: { repeatStrategy: croner },
    });
    return queue;
  };

  const process = async (handleDue: (due: DueRun) => Promise<DueVerdict>, job: Job<RunJobData>) => {
    const jobId = job.id ?? `${job.name}`;
    if ((await queueClient.get(doneKey(jobId))) !== null) {
      log.info({ jobId }, 'a run already done came again; not doing it twice');
      return;
    }
    const dueAtMs = job.data.dueAtMs ?? job.opts.prevMillis ?? job.timestamp;
    const attempt = job.attemptsMade + 1;
    const verdict = await runScheduledBy(job.data.traceContext, () =>
      handleDue({ scheduleId: job.data.scheduleId, dueAtMs, attempt, maxAttempts }),
    );
    if (verdict === 'retry') throw new Error('the scheduled run failed; BullMQ tries it again');
    // Kept two days: longer than any run can be redelivered after.
    await queueClient.set(doneKey(jobId), '1', { PX: 2 * 24 * 60 * 60_000 });
  };

  return {
    name: 'bullmq',
    repeatsByItself: true,
    async start(handleDue) {
      await openQueue();
      if (!workerClient.isOpen) await workerClient.connect();
      worker = new Worker<RunJobData>(queueName, (job) => process(handleDue, job), {
        connection: workerClient,
        prefix,
        concurrency,
        lockDuration: timings.lockDurationMs,
        stalledInterval: timings.stalledIntervalMs,
        // A run may be taken over twice (two processes killed in turn) before it counts as failed.
        maxStalledCount: 2,
        settings: { repeatStrategy: croner },
      });
      worker.on('error', (error) => log.warn({ err: error }, 'scheduling worker error'));
      worker.on('stalled', (jobId) =>
        log.warn({ jobId }, 'a scheduled run stalled; another process takes it'),
      );
      await worker.waitUntilReady();
      log.info({ concurrency }, 'scheduling worker started');
    },
    async arm(record) {
      const opened = await openQueue();
      if (record.state !== 'active') return;
      const traceContext = traceCarrierOfActiveSpan();
      const traced = traceContext === undefined ? {} : { traceContext };
      if (record.timing.kind === 'once') {
        await opened.add(
          'run',
          { scheduleId: record.id, dueAtMs: record.timing.atMs, ...traced },
          {
            ...jobOptions,
            jobId: onceJobId(record.id, record.timing.atMs),
            delay: Math.max(0, record.timing.atMs - Date.now()),
          },
        );
        return;
      }
      await opened.upsertJobScheduler(
        record.id,
        { pattern: record.timing.pattern, tz: record.timeZone },
        { name: 'run', data: { scheduleId: record.id, ...traced }, opts: jobOptions },
      );
    },
    async disarm(record) {
      const opened = await openQueue();
      if (record.timing.kind === 'cron') {
        await opened.removeJobScheduler(record.id);
        return;
      }
      // A run already going is locked and cannot be removed: it finishes.
      await opened.remove(onceJobId(record.id, record.timing.atMs)).catch(() => undefined);
    },
    async stop() {
      await worker?.close();
      await queue?.close();
      for (const client of [queueClient, workerClient]) if (client.isOpen) client.destroy();
    },
  };
}
