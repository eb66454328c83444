/**
 * One budget for every platform call made with one bot token (Discord: 50 requests/s for the whole
 * bot). Under load it decides who waits: new text first (a post is the moment a person first sees an
 * answer), then final edits, then in-between edits shared fairly, the one whose message has waited
 * longest going first; typing only when nothing else wants the budget.
 */
export type RequestPriority = 'post' | 'final-edit' | 'edit' | 'typing';

export interface ScheduledRequest<Result> {
  readonly priority: RequestPriority;
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
  const waiting: Waiting[] = [];
  let sequence = 0;
  let isTimerSet = false;

  const forgetOldSends = () => {
    const cutoff = clock.now() - windowMs;
    while (sentAtMs.length > 0 && (sentAtMs[0] ?? 0) <= cutoff) sentAtMs.shift();
  };
  const takeMostUrgent = (): Waiting | undefined => {
    let bestIndex = -1;
    for (const [index, candidate] of waiting.entries()) {
      const best = waiting[bestIndex];
      if (!best || isMoreUrgent(candidate, best)) bestIndex = index;
    }
    return bestIndex === -1 ? undefined : waiting.splice(bestIndex, 1)[0];
  };
  const dispatch = () => {
    forgetOldSends();
    while (waiting.length > 0 && sentAtMs.length < requestsPerWindow) {
      const next = takeMostUrgent();
      if (!next) break;
      sentAtMs.push(clock.now());
      next.start();
    }
    if (waiting.length > 0 && !isTimerSet) {
      isTimerSet = true;
      const oldest = sentAtMs[0] ?? clock.now();
      clock.setTimeout(
        () => {
          isTimerSet = false;
          dispatch();
        },
        Math.max(1, oldest + windowMs - clock.now()),
      );
    }
  };

  return {
    schedule<Result>(request: ScheduledRequest<Result>): Promise<Result> {
      return new Promise<Result>((resolve, reject) => {
        sequence += 1;
        waiting.push({
          priority: request.priority,
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
      return waiting.length === 0 && sentAtMs.length < requestsPerWindow / 2;
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
