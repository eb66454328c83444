import { type Clock, systemClock } from '../../src/delivery/clock.ts';
import { createOutboundQueue, type OutboundQueue } from '../../src/delivery/outbound-queue.ts';
import { createTokenBucket, type RateLimit } from '../../src/delivery/rate-limits.ts';
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

/**
 * Slack's limits as data: one token bucket per method, counted per workspace (and per channel for
 * the methods Slack counts so). A method without a budget goes straight out; method-pauses.ts still
 * holds it, and only it, when Slack answers 429.
 */
export function createSlackOutbound({
  budgets = methodBudgets,
  clock = systemClock,
}: {
  budgets?: Readonly<Record<string, MethodBudget>>;
  clock?: Clock;
} = {}): SlackOutbound {
  let limits = new Map<string, RateLimit>();
  const limitOf = (method: string, budget: MethodBudget): RateLimit => {
    let limit = limits.get(method);
    if (limit === undefined) {
      limit = createTokenBucket(budget);
      limits.set(method, limit);
    }
    return limit;
  };
  const queue = createOutboundQueue<SlackCallTarget>({
    clock,
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
