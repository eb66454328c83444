import { recordQueueWait } from '../operations/metrics.ts';
import { startPlatformCall } from '../tracing/platform-spans.ts';
import { type Clock, systemClock } from './clock.ts';
import type { Acquisition, BucketClaim, RateLimit } from './rate-limits.ts';

/**
 * The one road every platform call of a bot leaves by. A platform adapter creates one queue per bot
 * token with its limits as data (`rate-limits.ts`) and a `bucketsFor(target)` naming the limits a
 * call draws on; every reply streaming on that platform shares it. Under load it decides who waits,
 * by one rule everywhere:
 *
 * 1. `first-post`: the moment a person first sees an answer;
 * 2. `final-write`: a message's exact final text (and its buttons);
 * 3. `edit`: in-between edits, the message that has shown stale text longest first;
 * 4. `cosmetic`: typing, status lines, display names: never waited for (see `tryNow`).
 *
 * and one fair-share rule: replies writing at once in one group (a Discord channel, a Slack
 * workspace's method) each edit at most once per `sharers × 1/rate` (`fairIntervalMs`), so that
 * final texts are not held behind everyone's in-between edits.
 */
export type CallPriority = 'first-post' | 'final-write' | 'edit' | 'cosmetic';

export interface QueuedCall<Target, Result> {
  readonly priority: CallPriority;
  /** What the call is, in the adapter's terms (a channel and kind, a Slack method): its buckets. */
  readonly target: Target;
  /** For `edit`: when the message last showed fresh text; the stalest message is served first. */
  readonly staleSinceMs?: number;
  /**
   * Makes the call. Run only when every bucket has granted it, so whatever it reads (the text of
   * the moment) is read at the moment the call really goes out.
   */
  readonly run: () => Promise<Result>;
}

export interface OutboundQueue<Target> {
  /** Runs the call when its buckets allow and more urgent calls have gone; settles with its result. */
  schedule<Result>(call: QueuedCall<Target, Result>): Promise<Result>;
  /**
   * Runs the call only if no call waits for the same buckets and they have room now, else resolves
   * undefined at once: for calls a reply can do without (typing, a status line), and for a path a reply would
   * rather leave than wait for (Slack's `chat.startStream`, when `chat.postMessage` will do).
   */
  tryNow<Result>(call: Omit<QueuedCall<Target, Result>, 'priority'>): Promise<{ result: Result } | undefined>;
  /** How many calls wait for budget. */
  waitingCount(): number;
  /** A reply is writing in `group`: it shares the group's rate until `forgetWriter`. */
  noteWriter(group: string, writerId: string): void;
  forgetWriter(group: string, writerId: string): void;
  /**
   * The fair share: how long one reply should wait between two edits so that every reply writing
   * in `group` gets an equal share of `callsPerMinute`; at least `minimumMs`.
   */
  fairIntervalMs(options: { group: string; callsPerMinute: number; minimumMs: number }): number;
}

/** How soon a call whose limit could not answer (it threw) is tried again. */
const unansweredRetryMs = 1_000;

/** A reply that was never forgotten (it broke off) stops counting this long after it was noted. */
const idleWriterMs = 60_000;

const priorityRanks: Record<CallPriority, number> = {
  'first-post': 0,
  'final-write': 1,
  edit: 2,
  cosmetic: 3,
};

interface Waiting {
  readonly rank: number;
  readonly staleSinceMs: number;
  readonly sequence: number;
  readonly claims: readonly BucketClaim[];
  readonly queuedAtMs: number;
  readonly priority: CallPriority;
  /** Sends the call; `release` runs when its response (or failure) has arrived. */
  readonly start: (grants: readonly GrantedClaim[]) => void;
}

type GrantedClaim = Extract<Acquisition, { isGranted: true }>;

type ClaimsAnswer =
  | { readonly grants: readonly GrantedClaim[] }
  | { readonly retryAtMs: number; readonly refused: BucketClaim };

/** One pass over the waiting calls, at one moment. */
interface Round {
  readonly nowMs: number;
  readonly sorted: readonly Waiting[];
  /** Keys a limit refused this round, so the calls behind them are not asked about again. */
  readonly refused: Map<RateLimit, Set<string>>;
  earliestRetryAtMs: number;
}

export function createOutboundQueue<Target>({
  bucketsFor,
  routeOf,
  clock = systemClock,
}: {
  /** The limits a call draws on; an empty list sends it at once. */
  bucketsFor: (target: Target) => readonly BucketClaim[];
  /** The call's route or method as the platform's API names it (`chat.update`), for its span. */
  routeOf?: (target: Target) => string;
  clock?: Clock;
}): OutboundQueue<Target> {
  const waiting: Waiting[] = [];
  const writers = new Map<string, Map<string, number>>();
  let sequence = 0;
  let timer: { readonly handle: unknown; readonly dueAtMs: number } | undefined;
  let isDispatching = false;
  // A dispatch asked for while one awaited an asynchronous limit runs right after it.
  let isDispatchWanted = false;

  const releaseAll = (grants: readonly GrantedClaim[], wasSent: boolean) => {
    const endedAtMs = clock.now();
    for (const grant of grants) void grant.release({ endedAtMs, wasSent });
  };
  const startWhenGranted = (request: Waiting, grants: readonly GrantedClaim[]) => {
    recordQueueWait({ priority: request.priority, waitMs: clock.now() - request.queuedAtMs });
    request.start(grants);
  };

  // Asks every limit in turn; one refusal gives back what the others granted.
  const acquire = (claims: readonly BucketClaim[], nowMs: number): ClaimsAnswer | Promise<ClaimsAnswer> => {
    const grants: GrantedClaim[] = [];
    const take = (answer: Acquisition, claim: BucketClaim): ClaimsAnswer | undefined => {
      if (answer.isGranted) {
        grants.push(answer);
        return undefined;
      }
      releaseAll(grants, false);
      return { retryAtMs: answer.retryAtMs, refused: claim };
    };
    const step = (index: number): ClaimsAnswer | Promise<ClaimsAnswer> => {
      for (let at = index; at < claims.length; at += 1) {
        const claim = claims[at] as BucketClaim;
        const answer = claim.limit.tryAcquire(claim.key, nowMs);
        if (answer instanceof Promise) {
          return answer.then(
            (settled) => take(settled, claim) ?? step(at + 1),
            (error: unknown) => {
              releaseAll(grants, false);
              throw error;
            },
          );
        }
        const outcome = take(answer, claim);
        if (outcome !== undefined) return outcome;
      }
      return { grants };
    };
    return step(0);
  };

  // Runs synchronously unless a limit answers with a promise; a call made meanwhile asks again after.
  const dispatch = (): void => {
    if (isDispatching) {
      isDispatchWanted = true;
      return;
    }
    isDispatching = true;
    const done = () => {
      isDispatching = false;
      if (isDispatchWanted) {
        isDispatchWanted = false;
        dispatch();
      }
    };
    const round: Round = {
      nowMs: clock.now(),
      sorted: [...waiting].sort(compareUrgency),
      refused: new Map(),
      earliestRetryAtMs: Number.POSITIVE_INFINITY,
    };
    const pending = serve(round, 0);
    if (pending === undefined) done();
    else pending.then(done, done);
  };

  // Serves the most urgent calls whose buckets have room; a refused key is not asked again this round.
  const serve = (round: Round, from: number): Promise<void> | undefined => {
    for (let index = from; index < round.sorted.length; index += 1) {
      const request = round.sorted[index] as Waiting;
      if (request.claims.some((claim) => round.refused.get(claim.limit)?.has(claim.key))) continue;
      const answer = acquire(request.claims, round.nowMs);
      if (answer instanceof Promise) {
        return answer.then(
          (settled) => {
            grantOrNote(round, request, settled);
            return serve(round, index + 1);
          },
          // A limit that could not answer (a shared one whose store failed) counts as full for a
          // moment: the call waits and is asked about again, rather than stranded in the list.
          () => {
            round.earliestRetryAtMs = Math.min(round.earliestRetryAtMs, round.nowMs + unansweredRetryMs);
            return serve(round, index + 1);
          },
        );
      }
      grantOrNote(round, request, answer);
    }
    armTimer(round.earliestRetryAtMs);
    return undefined;
  };

  const grantOrNote = (round: Round, request: Waiting, answer: ClaimsAnswer) => {
    if ('retryAtMs' in answer) {
      const keys = round.refused.get(answer.refused.limit) ?? new Set<string>();
      keys.add(answer.refused.key);
      round.refused.set(answer.refused.limit, keys);
      round.earliestRetryAtMs = Math.min(round.earliestRetryAtMs, answer.retryAtMs);
      return;
    }
    const index = waiting.indexOf(request);
    if (index === -1) {
      releaseAll(answer.grants, false);
      return;
    }
    waiting.splice(index, 1);
    startWhenGranted(request, answer.grants);
  };

  // Nothing can go until `dueAtMs`, or until a response frees a slot (which dispatches again).
  const armTimer = (dueAtMs: number) => {
    if (waiting.length === 0 || !Number.isFinite(dueAtMs)) return;
    if (timer !== undefined && timer.dueAtMs <= dueAtMs && timer.dueAtMs > clock.now()) return;
    if (timer !== undefined) clock.clearTimeout(timer.handle);
    const handle = clock.setTimeout(
      () => {
        timer = undefined;
        dispatch();
      },
      Math.max(1, dueAtMs - clock.now()),
    );
    timer = { handle, dueAtMs };
  };

  const activeWriterCount = (group: string): number => {
    const active = writers.get(group);
    if (active === undefined) return 0;
    const cutoffMs = clock.now() - idleWriterMs;
    for (const [writerId, notedAtMs] of active) if (notedAtMs < cutoffMs) active.delete(writerId);
    if (active.size === 0) writers.delete(group);
    return active.size;
  };

  return {
    schedule<Result>(call: QueuedCall<Target, Result>): Promise<Result> {
      const traced = startPlatformCall({
        route: routeOf?.(call.target) ?? 'platform call',
        priority: call.priority,
      });
      const claims = bucketsFor(call.target);
      if (claims.length === 0) return traced.run(call.run, 0);
      return new Promise<Result>((resolve, reject) => {
        sequence += 1;
        const nowMs = clock.now();
        waiting.push({
          rank: priorityRanks[call.priority],
          priority: call.priority,
          staleSinceMs: call.staleSinceMs ?? nowMs,
          sequence,
          claims,
          queuedAtMs: nowMs,
          start: (grants) => {
            const waitedMs = clock.now() - nowMs;
            runGranted(() => traced.run(call.run, waitedMs), grants).then(resolve, reject);
          },
        });
        dispatch();
      });
    },
    async tryNow<Result>(call: Omit<QueuedCall<Target, Result>, 'priority'>) {
      const claims = bucketsFor(call.target);
      const isAnyoneWaiting = waiting.some((request) =>
        request.claims.some((held) =>
          claims.some((claim) => claim.limit === held.limit && claim.key === held.key),
        ),
      );
      if (isAnyoneWaiting) return undefined;
      const asked = acquire(claims, clock.now());
      // A limit that could not answer means no room now: this call is one a reply can do without.
      const answer = asked instanceof Promise ? await asked.catch(() => undefined) : asked;
      if (answer === undefined || 'retryAtMs' in answer) return undefined;
      return { result: await runGranted(call.run, answer.grants) };
    },
    waitingCount: () => waiting.length,
    noteWriter(group, writerId) {
      const active = writers.get(group) ?? new Map<string, number>();
      active.set(writerId, clock.now());
      writers.set(group, active);
    },
    forgetWriter(group, writerId) {
      const active = writers.get(group);
      active?.delete(writerId);
      if (active?.size === 0) writers.delete(group);
    },
    fairIntervalMs({ group, callsPerMinute, minimumMs }) {
      const sharers = Math.max(1, activeWriterCount(group));
      return Math.max(minimumMs, Math.ceil((60_000 * sharers) / callsPerMinute));
    },
  };

  async function runGranted<Result>(run: () => Promise<Result>, grants: readonly GrantedClaim[]) {
    try {
      return await run();
    } finally {
      releaseAll(grants, true);
      dispatch();
    }
  }
}

function compareUrgency(first: Waiting, second: Waiting): number {
  if (first.rank !== second.rank) return first.rank - second.rank;
  // Among in-between edits, the message that has shown stale text longest goes first; otherwise FIFO.
  if (first.rank === priorityRanks.edit && first.staleSinceMs !== second.staleSinceMs) {
    return first.staleSinceMs - second.staleSinceMs;
  }
  return first.sequence - second.sequence;
}
