import { type ActivityTotals, activityTotals } from './metrics.ts';

/** Replies a minute, and what share failed or was refused, over the last few minutes. */
export interface ActivityRates {
  /** The minutes the rates cover: the window, or less since the first sample. */
  readonly minutes: number;
  readonly repliesPerMinute: number;
  /** Failed replies among the finished ones; undefined when none finished. */
  readonly errorRate: number | undefined;
  /** Refusals among replies and refusals together; undefined when there were neither. */
  readonly refusalRate: number | undefined;
}

/**
 * Rates from the process's own counters (metrics.ts), over a sliding window: each read samples the
 * counters, and the rates are the change since the oldest sample still inside the window. Nothing
 * runs between reads; the first read after a quiet while compares with the last one before it.
 */
export function createActivityWindow({
  windowMs = 5 * 60_000,
  readTotals = activityTotals,
  nowMs = Date.now,
}: {
  windowMs?: number;
  readTotals?: () => Promise<ActivityTotals>;
  nowMs?: () => number;
} = {}): { rates(): Promise<ActivityRates> } {
  let samples: { atMs: number; totals: ActivityTotals }[] = [];
  const started = readTotals().then((totals) => {
    samples.push({ atMs: nowMs(), totals });
  });
  return {
    async rates() {
      await started;
      const now = { atMs: nowMs(), totals: await readTotals() };
      // Keep the newest sample at or before the window's start as the baseline, and those after it.
      const startMs = now.atMs - windowMs;
      const baselineIndex = samples.findLastIndex((sample) => sample.atMs <= startMs);
      samples = samples.slice(Math.max(baselineIndex, 0));
      const baseline = samples[0] ?? now;
      samples.push(now);
      const minutes = Math.max((now.atMs - baseline.atMs) / 60_000, 1 / 60);
      const replies = now.totals.replies - baseline.totals.replies;
      const failed = now.totals.failedReplies - baseline.totals.failedReplies;
      const refusals = now.totals.refusals - baseline.totals.refusals;
      return {
        minutes,
        repliesPerMinute: replies / minutes,
        errorRate: replies === 0 ? undefined : failed / replies,
        refusalRate: replies + refusals === 0 ? undefined : refusals / (replies + refusals),
      };
    },
  };
}
