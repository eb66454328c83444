import type { ScheduleRecord } from './schedule-record.ts';

/** A run that came due: which schedule, the time it was due, and which try this is (1 first). */
export interface DueRun {
  readonly scheduleId: string;
  readonly dueAtMs: number;
  readonly attempt: number;
  readonly maxAttempts: number;
}

/** What the scheduler made of a due run: finished with (ran, skipped, paused, gave up), or to try again. */
export type DueVerdict = 'done' | 'retry';

/**
 * What runs schedules at their times: the timer wheel of one process (SQLite, memory), or BullMQ's
 * job schedulers shared by every process of a bot (Redis). The scheduler decides what a run does;
 * the engine decides when, once, and by which process.
 */
export interface ScheduleEngine {
  readonly name: 'timer-wheel' | 'bullmq';
  /**
   * True when the engine keeps a repeating schedule going by itself after each run (BullMQ's job
   * scheduler); false when the scheduler must arm the next run (the wheel).
   */
  readonly repeatsByItself: boolean;
  /** Starts taking due runs; runs missed while no process ran come due at once. */
  start(handleDue: (due: DueRun) => Promise<DueVerdict>): Promise<void>;
  /** Puts an active schedule's next run in place (after creating, resuming, or a run on the wheel). */
  arm(record: ScheduleRecord): Promise<void>;
  /** Takes a schedule's future runs away (pause, delete); a run already going finishes. */
  disarm(record: ScheduleRecord): Promise<void>;
  /** Stops taking runs and waits for those going to finish. */
  stop(): Promise<void>;
}

/** Waits between tries of a failed run: base × 2^(try − 1), as BullMQ's exponential backoff. */
export function retryDelayMs(attempt: number, baseMs: number): number {
  return baseMs * 2 ** Math.max(0, attempt - 1);
}
