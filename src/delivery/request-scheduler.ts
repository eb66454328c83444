/**
 * One budget for every platform call made with one bot token (Discord: 50 requests/s for the whole
 * bot). Under load it decides who waits: new text first (a post is the moment a person first sees an
 * answer), then final edits, then in-between edits shared fairly, the one whose message has waited
 * longest going first; typing only when nothing else wants the budget.
 */
export type RequestPriority = 'post' | 'final-edit' | 'edit' | 'typing';

/** A narrower budget a request also draws on, e.g. the edits of one Discord channel (5 per 5 s). */
export interface RequestBucket {
  readonly key: string;
  readonly limit: number;
  readonly windowMs: number;
}

export interface ScheduledRequest<Result> {
  readonly priority: RequestPriority;
  /**
   * Counted when the request is sent, not when it is queued, so the platform sees the same windows
   * the scheduler counted; a request whose bucket is full waits while others go ahead.
   */
  readonly bucket?: RequestBucket;
  /** For `edit`: when the message last showed fresh text; the stalest message is served first. */
  readonly staleSinceMs?: number;
  readonly run: () => Promise<Result>;
}

export interface RequestScheduler {
  /** Runs the request when the budget allows and more urgent requests have gone; settles with its result. */
  schedule<Result>(request: ScheduledRequest<Result>): Promise<Result>;
  /** True when nothing is waiting and the current second has room: the time for a typing indicator. */
  isIdle(): boolean;
  /** How many requests wait for budget. */
  waitingCount(): number;
}

export interface SchedulerClock {
  now(): number;
  setTimeout(callback: () => void, delayMs: number): unknown;
}

const systemSchedulerClock: SchedulerClock = {
  now: () => Date.now(),
  setTimeout: (callback, delayMs) => setTimeout(callback, delayMs),
};

const priorityOrder: Record<RequestPriority, number> = { post: 0, 'final-edit': 1, edit: 2, typing: 3 };

interface Waiting {
  readonly priority: RequestPriority;
  readonly bucket: RequestBucket | undefined;
  readonly staleSinceMs: number;
  readonly sequence: number;
  readonly start: () => void;
}

/**
 * A scheduler spending at most `requestsPerWindow` calls in any `windowMs`. Set it a little under the
 * platform's limit: the platform's clock and ours start their windows at different moments.
 */
export function createRequestScheduler({
  requestsPerWindow,
  windowMs = 1_000,
  clock = systemSchedulerClock,
}: {
  requestsPerWindow: number;
  windowMs?: number;
  clock?: SchedulerClock;
}): RequestScheduler {
  const sentAtMs: number[] = [];
  const bucketSentAtMs = new Map<string, number[]>();
  const waiting: Waiting[] = [];
  let sequence = 0;
  let timerDueAtMs: number | undefined;

  const forgetOldSends = () => {
    const nowMs = clock.now();
    while (sentAtMs.length > 0 && (sentAtMs[0] ?? 0) <= nowMs - windowMs) sentAtMs.shift();
  };
  const bucketSends = (bucket: RequestBucket): number[] => {
    const sends = bucketSentAtMs.get(bucket.key) ?? [];
    const cutoff = clock.now() - bucket.windowMs;
    while (sends.length > 0 && (sends[0] ?? 0) <= cutoff) sends.shift();
    if (sends.length === 0) bucketSentAtMs.delete(bucket.key);
    return sends;
  };
  // When a waiting request's bucket lets it go; now when it has no bucket or room.
  const bucketReadyAtMs = (bucket: RequestBucket | undefined): number => {
    if (!bucket) return clock.now();
    const sends = bucketSends(bucket);
    return sends.length < bucket.limit
      ? clock.now()
      : (sends[sends.length - bucket.limit] ?? 0) + bucket.windowMs;
  };
  const takeMostUrgent = (): Waiting | undefined => {
    let bestIndex = -1;
    const nowMs = clock.now();
    for (const [index, candidate] of waiting.entries()) {
      const best = waiting[bestIndex];
      if (bucketReadyAtMs(candidate.bucket) > nowMs) continue;
      if (!best || isMoreUrgent(candidate, best)) bestIndex = index;
    }
    return bestIndex === -1 ? undefined : waiting.splice(bestIndex, 1)[0];
  };
  const send = (request: Waiting) => {
    const nowMs = clock.now();
    sentAtMs.push(nowMs);
    if (request.bucket) {
      const sends = bucketSentAtMs.get(request.bucket.key) ?? [];
      sends.push(nowMs);
      bucketSentAtMs.set(request.bucket.key, sends);
    }
    request.start();
  };
  const dispatch = () => {
    forgetOldSends();
    while (waiting.length > 0 && sentAtMs.length < requestsPerWindow) {
      const next = takeMostUrgent();
      if (!next) break;
      send(next);
    }
    if (waiting.length === 0) return;
    const globalReadyAtMs = sentAtMs.length < requestsPerWindow ? clock.now() : (sentAtMs[0] ?? 0) + windowMs;
    const earliestBucketAtMs = Math.min(...waiting.map((request) => bucketReadyAtMs(request.bucket)));
    const dueAtMs = Math.max(globalReadyAtMs, earliestBucketAtMs);
    if (timerDueAtMs !== undefined && timerDueAtMs <= dueAtMs) return;
    timerDueAtMs = dueAtMs;
    clock.setTimeout(
      () => {
        if (timerDueAtMs === dueAtMs) timerDueAtMs = undefined;
        dispatch();
      },
      Math.max(1, dueAtMs - clock.now()),
    );
  };

  return {
    schedule<Result>(request: ScheduledRequest<Result>): Promise<Result> {
      return new Promise<Result>((resolve, reject) => {
        sequence += 1;
        waiting.push({
          priority: request.priority,
          bucket: request.bucket,
          staleSinceMs: request.staleSinceMs ?? clock.now(),
          sequence,
          start: () => {
            request.run().then(resolve, reject);
          },
        });
        dispatch();
      });
    },
    isIdle() {
      forgetOldSends();
      // A quarter of the window at most, so a burst of typing never crowds out the texts right behind it.
      return waiting.length === 0 && sentAtMs.length < requestsPerWindow / 4;
    },
    waitingCount: () => waiting.length,
  };
}

function isMoreUrgent(candidate: Waiting, best: Waiting): boolean {
  const byPriority = priorityOrder[candidate.priority] - priorityOrder[best.priority];
  if (byPriority !== 0) return byPriority < 0;
  // Among in-between edits, the message that has shown stale text longest goes first; otherwise FIFO.
  if (candidate.priority === 'edit' && candidate.staleSinceMs !== best.staleSinceMs) {
    return candidate.staleSinceMs < best.staleSinceMs;
  }
  return candidate.sequence < best.sequence;
}
