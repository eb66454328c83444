import { type Clock, systemClock } from '../../src/delivery/clock.ts';
import { createOutboundQueue, type OutboundQueue } from '../../src/delivery/outbound-queue.ts';
import { createTokenBucket, type RateLimit, type TokenBucketSize } from '../../src/delivery/rate-limits.ts';
import { type MethodBudget, methodBudgets } from './slack-limits.ts';

/** What a Slack Web API call is, as far as its rate limits go. */
export interface SlackCallTarget {
  readonly teamId: string;
  readonly method: string;
  /** For methods Slack also counts per channel. */
  readonly channel?: string;
}

/** The bot's one outbound queue on Slack, shared by every reply in every workspace. */
export interface SlackOutbound extends OutboundQueue<SlackCallTarget> {
  /** Forgets every bucket, as after a quiet hour (tests start each case from here). */
  reset(): void;
}

/** Makes the bucket of one method; several bot processes pass one they all draw on (Redis). */
export type MethodBucketFactory = (method: string, size: TokenBucketSize) => RateLimit;

/**
 * Slack's limits as data: one token bucket per method, counted per workspace (and per channel for
 * the methods Slack counts so). A method without a budget goes straight out; method-pauses.ts still
 * holds it, and only it, when Slack answers 429. Slack counts per app, not per process, so several
 * processes of one bot pass `createBucket` with a shared bucket.
 */
export function createSlackOutbound({
  budgets = methodBudgets,
  clock = systemClock,
  createBucket = (_method, size) => createTokenBucket(size),
}: {
  budgets?: Readonly<Record<string, MethodBudget>>;
  clock?: Clock;
  createBucket?: MethodBucketFactory;
} = {}): SlackOutbound {
  let limits = new Map<string, RateLimit>();
  const limitOf = (method: string, budget: MethodBudget): RateLimit => {
    let limit = limits.get(method);
    if (limit === undefined) {
      limit = createBucket(method, { perMinute: budget.perMinute, burst: budget.burst });
      limits.set(method, limit);
    }
    return limit;
  };
  const queue = createOutboundQueue<SlackCallTarget>({
    clock,
    routeOf: ({ method }) => method,
    bucketsFor: ({ teamId, method, channel }) => {
      const budget = budgets[method];
      if (budget === undefined) return [];
      const key = budget.isPerChannel ? `${teamId} ${channel ?? ''}` : teamId;
      return [{ limit: limitOf(method, budget), key }];
    },
  });
  return {
    ...queue,
    reset() {
      limits = new Map();
    },
  };
}

/** The group whose replies share a method's budget in one workspace (see `fairIntervalMs`). */
export function methodGroup(teamId: string, method: string): string {
  return `${teamId} ${method}`;
}
