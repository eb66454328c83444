import { recordQueueWait } from '../operations/metrics.ts';

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
  /** Sends the request; `onSettled` runs when its response (or failure) has arrived. */
  readonly start: (onSettled: () => void) => void;
}

interface Slot {
  /** When the response arrived; infinite while the request is in flight. */
  endedAtMs: number;
}

function dropExpired(slots: Slot[], cutoffMs: number): void {
  let kept = 0;
  for (const slot of slots) {
    if (slot.endedAtMs > cutoffMs) {
      slots[kept] = slot;
      kept += 1;
    }
  }
  slots.length = kept;
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
  // A request occupies its slot from the moment it is sent until one window after its response:
  // the platform counts it when it arrives, which can be well after we hand it to the HTTP client.
  const globalSlots: Slot[] = [];
  const bucketSlots = new Map<string, Slot[]>();
  const waiting: Waiting[] = [];
  let sequence = 0;
  let timerDueAtMs: number | undefined;

  // When another request may use these slots: now if there is room, else when the oldest finished
  // slot leaves the window (never, while every slot is still in flight: a response frees one).
  const readyAtMs = (slots: Slot[], limit: number, slotWindowMs: number, nowMs: number): number => {
    dropExpired(slots, nowMs - slotWindowMs);
    if (slots.length < limit) return nowMs;
    const finished = slots
      .map((slot) => slot.endedAtMs)
      .filter(Number.isFinite)
      .sort((first, second) => first - second);
    const freedBy = finished[slots.length - limit];
    return freedBy === undefined ? Number.POSITIVE_INFINITY : freedBy + slotWindowMs;
  };
  const bucketReadyAtMs = (
    bucket: RequestBucket | undefined,
    nowMs: number,
    memo: Map<string, number>,
  ): number => {
    if (!bucket) return nowMs;
    const known = memo.get(bucket.key);
    if (known !== undefined) return known;
    const slots = bucketSlots.get(bucket.key);
    const ready = slots ? readyAtMs(slots, bucket.limit, bucket.windowMs, nowMs) : nowMs;
    if (slots?.length === 0) bucketSlots.delete(bucket.key);
    memo.set(bucket.key, ready);
    return ready;
  };
  const takeMostUrgent = (nowMs: number, memo: Map<string, number>): Waiting | undefined => {
    let bestIndex = -1;
    for (const [index, candidate] of waiting.entries()) {
      const best = waiting[bestIndex];
      if (best && !isMoreUrgent(candidate, best)) continue;
      if (bucketReadyAtMs(candidate.bucket, nowMs, memo) > nowMs) continue;
      bestIndex = index;
    }
    return bestIndex === -1 ? undefined : waiting.splice(bestIndex, 1)[0];
  };
  const send = (request: Waiting, memo: Map<string, number>) => {
    const slot: Slot = { endedAtMs: Number.POSITIVE_INFINITY };
    globalSlots.push(slot);
    if (request.bucket) {
      const slots = bucketSlots.get(request.bucket.key) ?? [];
      slots.push(slot);
      bucketSlots.set(request.bucket.key, slots);
      memo.delete(request.bucket.key);
    }
    request.start(() => {
      slot.endedAtMs = clock.now();
      dispatch();
    });
  };
  const dispatch = () => {
    const nowMs = clock.now();
    const memo = new Map<string, number>();
    while (waiting.length > 0 && readyAtMs(globalSlots, requestsPerWindow, windowMs, nowMs) <= nowMs) {
      const next = takeMostUrgent(nowMs, memo);
      if (!next) break;
      send(next, memo);
    }
    if (waiting.length === 0) return;
    const globalReadyAtMs = readyAtMs(globalSlots, requestsPerWindow, windowMs, nowMs);
    const earliestBucketAtMs = Math.min(
      ...waiting.map((request) => bucketReadyAtMs(request.bucket, nowMs, memo)),
    );
    const dueAtMs = Math.max(globalReadyAtMs, earliestBucketAtMs);
    // Nothing can go until a response frees a slot; that response dispatches again.
    if (!Number.isFinite(dueAtMs)) return;
    if (timerDueAtMs !== undefined && timerDueAtMs <= dueAtMs && timerDueAtMs > nowMs) return;
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
        const queuedAtMs = clock.now();
        waiting.push({
          priority: request.priority,
          bucket: request.bucket,
          staleSinceMs: request.staleSinceMs ?? clock.now(),
          sequence,
          start: (onSettled) => {
            recordQueueWait({ priority: request.priority, waitMs: clock.now() - queuedAtMs });
            request.run().then(resolve, reject).finally(onSettled);
          },
        });
        dispatch();
      });
    },
    isIdle() {
      dropExpired(globalSlots, clock.now() - windowMs);
      // A quarter of the window at most, so a burst of typing never crowds out the texts right behind it.
      return waiting.length === 0 && globalSlots.length < requestsPerWindow / 4;
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
