import type { RequestPriority } from '../../src/delivery/request-scheduler.ts';
import { type MethodBudget, methodBudgets } from './slack-limits.ts';

/**
 * The budget of the Web API methods parley calls often, per workspace. Slack counts per method and
 * workspace ("about 50 a minute, bursts tolerated"), so every reply streaming in one workspace
 * shares one token bucket a method. When calls wait, the order is the one delivery uses everywhere:
 * final edits before in-between ones, and among those the message that has shown stale text longest.
 */
export interface CallBudget {
  /** Makes the call when the method's budget in `teamId` allows, and settles with its result. */
  run<Result>(options: {
    teamId: string;
    method: string;
    priority: RequestPriority;
    /** For in-between edits: when the message last showed fresh text. */
    staleSinceMs?: number;
    /** The reply making the call (see `noteWriter`). */
    writerId?: string;
    call: () => Promise<Result>;
  }): Promise<Result>;
  /**
   * Makes the call only if the method's budget allows it now, without waiting: undefined when it
   * would have had to wait (the caller then takes another way, e.g. chat.update for a native stream).
   */
  runIfFree<Result>(options: {
    teamId: string;
    method: string;
    call: () => Promise<Result>;
  }): Promise<{ result: Result } | undefined>;
  /** A reply is writing in the workspace: it shares the budget until `forgetWriter`. */
  noteWriter(options: { teamId: string; writerId: string }): void;
  forgetWriter(options: { teamId: string; writerId: string }): void;
  /**
   * How long one reply should wait between two edits so that every reply writing in the workspace
   * gets an equal share of the method's budget: at least `minimumMs`.
   */
  fairIntervalMs(options: { teamId: string; method: string; minimumMs: number }): number;
  /** Forgets every bucket and writer, as after a quiet hour (tests start each case from here). */
  reset(): void;
}

/** A reply that was never forgotten (it broke off) stops counting this long after its last call. */
const idleWriterMs = 60_000;

interface Waiting {
  readonly rank: number;
  readonly staleSinceMs: number;
  readonly sequence: number;
  readonly start: () => void;
}

interface Bucket {
  readonly budget: MethodBudget;
  tokens: number;
  refilledAtMs: number;
  readonly waiting: Waiting[];
  isTimerSet: boolean;
}

const priorityRanks: Record<RequestPriority, number> = { post: 0, 'final-edit': 1, edit: 2, typing: 3 };

/**
 * Creates the budget. A token bucket rather than a fixed window: a window lets a burst through and
 * then holds every reply in the workspace until it has passed, which shows as a stall.
 */
export function createCallBudget({
  budgets = methodBudgets,
  now = () => performance.now(),
}: {
  budgets?: Readonly<Record<string, MethodBudget>>;
  now?: () => number;
} = {}): CallBudget {
  const buckets = new Map<string, Bucket>();
  const writers = new Map<string, Map<string, number>>();
  let sequence = 0;

  const noteWriter = ({ teamId, writerId }: { teamId: string; writerId: string }) => {
    let active = writers.get(teamId);
    if (active === undefined) {
      active = new Map();
      writers.set(teamId, active);
    }
    active.set(writerId, now());
  };
  const activeWriterCount = (teamId: string): number => {
    const active = writers.get(teamId);
    if (active === undefined) return 0;
    const cutoff = now() - idleWriterMs;
    for (const [writerId, lastCallMs] of active) if (lastCallMs < cutoff) active.delete(writerId);
    return active.size;
  };

  const bucketOf = (teamId: string, method: string, budget: MethodBudget): Bucket => {
    const key = `${teamId} ${method}`;
    let bucket = buckets.get(key);
    if (bucket === undefined) {
      bucket = { budget, tokens: budget.burst, refilledAtMs: now(), waiting: [], isTimerSet: false };
      buckets.set(key, bucket);
    }
    return bucket;
  };
  const refill = (bucket: Bucket): void => {
    const nowMs = now();
    bucket.tokens = Math.min(
      bucket.budget.burst,
      bucket.tokens + ((nowMs - bucket.refilledAtMs) * bucket.budget.perMinute) / 60_000,
    );
    bucket.refilledAtMs = nowMs;
  };
  const dispatch = (bucket: Bucket): void => {
    const tokensPerMs = bucket.budget.perMinute / 60_000;
    refill(bucket);
    while (bucket.tokens >= 1 && bucket.waiting.length > 0) {
      bucket.tokens -= 1;
      takeMostUrgent(bucket.waiting)?.start();
    }
    if (bucket.waiting.length > 0 && !bucket.isTimerSet) {
      bucket.isTimerSet = true;
      setTimeout(
        () => {
          bucket.isTimerSet = false;
          dispatch(bucket);
        },
        Math.ceil((1 - bucket.tokens) / tokensPerMs),
      );
    }
  };

  return {
    noteWriter,
    forgetWriter({ teamId, writerId }) {
      writers.get(teamId)?.delete(writerId);
    },
    fairIntervalMs({ teamId, method, minimumMs }) {
      const budget = budgets[method];
      if (budget === undefined) return minimumMs;
      const sharers = Math.max(1, activeWriterCount(teamId));
      return Math.max(minimumMs, Math.ceil((60_000 * sharers) / budget.perMinute));
    },
    run({ teamId, method, priority, staleSinceMs, writerId, call }) {
      const budget = budgets[method];
      if (writerId !== undefined) noteWriter({ teamId, writerId });
      if (budget === undefined) return call();
      const target = bucketOf(teamId, method, budget);
      return new Promise((resolve, reject) => {
        sequence += 1;
        target.waiting.push({
          rank: priorityRanks[priority],
          staleSinceMs: staleSinceMs ?? now(),
          sequence,
          start: () => {
            call().then(resolve, reject);
          },
        });
        dispatch(target);
      });
    },
    async runIfFree({ teamId, method, call }) {
      const budget = budgets[method];
      if (budget !== undefined) {
        const bucket = bucketOf(teamId, method, budget);
        refill(bucket);
        if (bucket.tokens < 1 || bucket.waiting.length > 0) return undefined;
        bucket.tokens -= 1;
      }
      return { result: await call() };
    },
    reset() {
      buckets.clear();
      writers.clear();
    },
  };
}

function takeMostUrgent(waiting: Waiting[]): Waiting | undefined {
  let bestIndex = 0;
  for (const [index, candidate] of waiting.entries()) {
    const best = waiting[bestIndex];
    if (best !== undefined && isMoreUrgent(candidate, best)) bestIndex = index;
  }
  return waiting.splice(bestIndex, 1)[0];
}

function isMoreUrgent(candidate: Waiting, best: Waiting): boolean {
  if (candidate.rank !== best.rank) return candidate.rank < best.rank;
  if (candidate.staleSinceMs !== best.staleSinceMs) return candidate.staleSinceMs < best.staleSinceMs;
  return candidate.sequence < best.sequence;
}
