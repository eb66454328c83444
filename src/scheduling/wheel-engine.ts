import type { Clock } from '../delivery/clock.ts';
import type { Logger } from '../log.ts';
import type { DueRun, DueVerdict, ScheduleEngine } from './schedule-engine.ts';
import { retryDelayMs } from './schedule-engine.ts';
import type { ScheduleStore } from './schedule-store.ts';
import { createTimerWheel } from './timer-wheel.ts';

/**
 * The engine of a single process (SQLite or memory store): every active schedule's next run sits in
 * one timer wheel, read from the store at start. A run the process was down for has its time in the
 * past and comes due at the first tick; a run the process died in the middle of was never marked
 * done (the record still names it), so it comes due again the same way.
 */
export function createWheelEngine({
  store,
  clock,
  logger,
  maxAttempts,
  retryBaseMs,
  concurrency,
  tickMs,
}: {
  store: ScheduleStore;
  clock: Clock;
  logger: Logger;
  maxAttempts: number;
  retryBaseMs: number;
  /** Runs going at once; more wait their turn in due order. */
  concurrency: number;
  tickMs?: number;
}): ScheduleEngine & { readonly pendingCount: number } {
  let handle: ((due: DueRun) => Promise<DueVerdict>) | undefined;
  const waiting: DueRun[] = [];
  const going = new Set<Promise<void>>();
  let isStopped = false;

  const pump = () => {
    while (!isStopped && handle !== undefined && going.size < concurrency && waiting.length > 0) {
      const due = waiting.shift() as DueRun;
      const run = handle;
      const task = run(due)
        .then((verdict) => {
          if (verdict === 'retry' && !isStopped)
            wheel.set(due.scheduleId, clock.now() + retryDelayMs(due.attempt, retryBaseMs), {
              dueAtMs: due.dueAtMs,
              attempt: due.attempt + 1,
            });
        })
        .catch((error: unknown) => {
          logger.error({ err: error, scheduleId: due.scheduleId }, 'a scheduled run failed unexpectedly');
        })
        .finally(() => {
          going.delete(task);
          pump();
        });
      going.add(task);
    }
  };
  const wheel = createTimerWheel<{ dueAtMs: number; attempt: number }>({
    clock,
    ...(tickMs === undefined ? {} : { tickMs }),
    onDue: (scheduleId, _firesAtMs, { dueAtMs, attempt }) => {
      waiting.push({ scheduleId, dueAtMs, attempt, maxAttempts });
      pump();
    },
  });

  return {
    name: 'timer-wheel',
    repeatsByItself: false,
    async start(handleDue) {
      handle = handleDue;
      let armedCount = 0;
      for await (const record of store.all()) {
        if (record.state !== 'active' || record.nextRunAtMs === undefined) continue;
        wheel.set(record.id, record.nextRunAtMs, { dueAtMs: record.nextRunAtMs, attempt: 1 });
        armedCount += 1;
      }
      logger.info({ armedCount }, 'schedules armed on the timer wheel');
    },
    async arm(record) {
      if (record.state !== 'active' || record.nextRunAtMs === undefined) {
        wheel.delete(record.id);
        return;
      }
      wheel.set(record.id, record.nextRunAtMs, { dueAtMs: record.nextRunAtMs, attempt: 1 });
    },
    async disarm(record) {
      wheel.delete(record.id);
    },
    async stop() {
      isStopped = true;
      wheel.stop();
      await Promise.allSettled([...going]);
    },
    get pendingCount() {
      return waiting.length + going.size;
    },
  };
}
