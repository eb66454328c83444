import type { BudgetMeasure } from './budget-rules.ts';

/**
 * Where spending is counted: one counter per scope and period (a person's day, a channel's month,
 * the process's day…), each holding what was spent and what requests in flight have reserved.
 *
 * A request holds its worst case on every counter that has a limit before the gateway is called, and
 * the hold is taken only when it fits under every limit at once: the check and the hold are one
 * atomic step, so two requests can never both take the last of a budget. Afterwards the request
 * settles (the real spending is added and its hold dropped) or releases its hold. A hold a dead
 * process never settled lapses at `holdUntilMs`.
 *
 * Implementations: keyv records under an in-process lock (memory, SQLite: one process), and Redis
 * scripts (several processes on one Redis). test/spending/spend-store-contract.ts runs the same
 * suite against each.
 */
export interface SpendStore {
  hold(request: HoldRequest): Promise<HoldOutcome>;
  settle(request: SettleRequest): Promise<void>;
  release(request: { reservationId: string; heldCounters: readonly CounterAddress[] }): Promise<void>;
  /** What each counter has spent and holds now (lapsed holds left out). */
  read(request: { keys: readonly string[]; nowMs: number }): Promise<CounterState[]>;
  /** The tool calls counted on each counter (none on a counter written before tools were counted). */
  readToolCalls(request: { keys: readonly string[] }): Promise<ToolCallCounts[]>;
  /** Takes the tool calls off these counters, leaving their spending (/forget). */
  forgetToolCalls(request: { keys: readonly string[] }): Promise<void>;
  /** The members of a ranking with the highest cost first, at most `count`. */
  readRanking(request: { key: string; count: number }): Promise<RankedMember[]>;
  /**
   * Moves a member's score to another member in each ranking (/forget: a person's spending stays in
   * the top list under `forgotten`); rankings without the member are left alone.
   */
  renameRankingMember(request: { keys: readonly string[]; member: string; to: string }): Promise<void>;
}

/** An amount of the three measures budgets are counted in; cost in billionths of a unit. */
export interface SpendAmount {
  readonly costNanos: number;
  readonly tokens: number;
  readonly images: number;
}

/** What was spent on a counter in its period. */
export interface SpentTotals {
  readonly requests: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly images: number;
  readonly costNanos: number;
}

/** How often one tool ran, and how many of those calls failed. */
export interface ToolCallCount {
  readonly calls: number;
  readonly errors: number;
}

/**
 * Tool calls by tool name. Counted beside the spending, not as a budget measure: a priced call's
 * price is already in `costNanos`; these say which tools the money and the time went to (/usage).
 */
export type ToolCallCounts = Readonly<Record<string, ToolCallCount>>;

export interface CounterState {
  readonly spent: SpentTotals;
  /** What requests in flight hold on the counter. */
  readonly held: SpendAmount;
}

/** A counter, and how long it is kept after its last change. */
export interface CounterAddress {
  readonly key: string;
  readonly ttlMs: number;
}

/** A counter and the limits it must stay under; a measure without a limit is unbounded. */
export interface LimitedCounter extends CounterAddress {
  readonly limits: Readonly<Partial<Record<BudgetMeasure, number>>>;
}

export interface HoldRequest {
  /** Unique per request; settle and release name it. */
  readonly reservationId: string;
  /** The worst case of the request, held on every counter. */
  readonly amount: SpendAmount;
  readonly counters: readonly LimitedCounter[];
  readonly nowMs: number;
  /** When the hold lapses if nobody settles or releases it (a process that died mid-request). */
  readonly holdUntilMs: number;
}

export type HoldOutcome =
  | {
      readonly isHeld: true;
      /** Each counter after the hold, in the order of the request. */
      readonly states: readonly CounterState[];
    }
  | {
      readonly isHeld: false;
      /** The first counter (in request order) the amount does not fit under, and in what. */
      readonly counterIndex: number;
      readonly measure: BudgetMeasure;
      /** That counter without the refused amount. */
      readonly state: CounterState;
    };

export interface SettleRequest {
  readonly reservationId: string;
  /** The counters the request's hold sits on, to drop it. */
  readonly heldCounters: readonly CounterAddress[];
  /** Every counter the spending is added to. */
  readonly counters: readonly CounterAddress[];
  readonly spent: SpentTotals;
  /** The tool calls to add to every counter; none when absent. */
  readonly toolCalls?: ToolCallCounts;
  /**
   * Rankings (top users, top channels, models) where `member` gains `costNanos`, or the whole spent
   * cost when it is absent (a model's share of a reply that called several).
   */
  readonly rankings: readonly {
    readonly key: string;
    readonly ttlMs: number;
    readonly member: string;
    readonly costNanos?: number;
  }[];
}

export interface RankedMember {
  readonly member: string;
  readonly costNanos: number;
}

export const noSpending: SpentTotals = {
  requests: 0,
  promptTokens: 0,
  completionTokens: 0,
  images: 0,
  costNanos: 0,
};
/** Adds the tool calls of `more` to `counts`, tool by tool. */
export function addToolCalls(counts: ToolCallCounts, more: ToolCallCounts): ToolCallCounts {
  const sum: Record<string, ToolCallCount> = { ...counts };
  for (const [tool, count] of Object.entries(more)) {
    const before = sum[tool] ?? { calls: 0, errors: 0 };
    sum[tool] = { calls: before.calls + count.calls, errors: before.errors + count.errors };
  }
  return sum;
}

export const noAmount: SpendAmount = { costNanos: 0, tokens: 0, images: 0 };

/** How much of a measure an amount holds. */
export function amountIn(amount: SpendAmount, measure: BudgetMeasure): number {
  return measure === 'cost' ? amount.costNanos : measure === 'tokens' ? amount.tokens : amount.images;
}

/** How much of a measure was spent. */
export function spentIn(spent: SpentTotals, measure: BudgetMeasure): number {
  return measure === 'cost'
    ? spent.costNanos
    : measure === 'tokens'
      ? spent.promptTokens + spent.completionTokens
      : spent.images;
}

export const budgetMeasures: readonly BudgetMeasure[] = ['cost', 'tokens', 'images'];

/**
 * The first measure in which `amount` does not fit under the counter's limits, or undefined. A
 * measure the request does not use (no images in a chat reply) never refuses it, even at its limit.
 */
export function overflowingMeasure({
  state,
  amount,
  limits,
}: {
  state: CounterState;
  amount: SpendAmount;
  limits: LimitedCounter['limits'];
}): BudgetMeasure | undefined {
  return budgetMeasures.find((measure) => {
    const limit = limits[measure];
    const wanted = amountIn(amount, measure);
    return (
      limit !== undefined &&
      wanted > 0 &&
      spentIn(state.spent, measure) + amountIn(state.held, measure) + wanted > limit
    );
  });
}
