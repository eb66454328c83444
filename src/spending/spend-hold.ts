import { randomUUID } from 'node:crypto';
import type { BudgetCheck, SpendSubject, UsageLedger } from '../conversation/usage-ledger.ts';
import type { ModelCatalog } from '../gateway/model-catalog.ts';
import type { TokenUsage } from '../gateway/token-usage.ts';
import type { Logger } from '../log.ts';
import { amountFor, type SpendWork } from './budget-checks.ts';
import { imageCostNanos, priceOf, usageCostNanos } from './prices.ts';
import { addToolCalls, type CounterAddress, type SpendAmount, type ToolCallCounts } from './spend-store.ts';

/** One gateway call as it is about to be sent: the model it goes to and its worst case. */
export interface GatewayCallWork {
  readonly model: string;
  readonly work: SpendWork;
}

/** What one call used once it is over; nothing known (it never reached the gateway) counts nothing. */
export interface GatewayCallOutcome {
  /** Tokens as the gateway reported them, or as estimated when it did not (a stream cut short). */
  readonly usage?: TokenUsage | undefined;
  readonly images?: number;
  /** A priced tool call that ran (not a gateway request: it adds cost, not requests). */
  readonly toolCalls?: number;
}

/** A call the hold covers: say what it used when it is over, exactly once. */
export interface CoveredCall {
  record(outcome: GatewayCallOutcome): void;
}

/** What a hold needs of the spend guard that opened it. */
export interface HoldAccount {
  readonly ledger: UsageLedger;
  readonly catalog: ModelCatalog;
  readonly subject: SpendSubject;
  readonly budgets: readonly BudgetCheck[];
  readonly holdUntil: Date;
  readonly now: () => Date;
  readonly logger: Logger;
  /** The person's words for a top-up the budgets refused. */
  describeRefusal(refused: {
    budget: BudgetCheck;
    remaining: number;
    window: RefusedWindow;
    amount: SpendAmount;
    work: SpendWork;
  }): string;
}

type RefusedWindow = Extract<Awaited<ReturnType<UsageLedger['hold']>>, { isHeld: false }>['window'];

/** Thrown by `cover` when the budgets cannot pay for the next call; its message is for the person. */
export class SpendLimitReachedError extends Error {
  readonly userMessage: string;
  constructor(userMessage: string) {
    super('a budget cannot pay for the next gateway call');
    this.name = 'SpendLimitReachedError';
    this.userMessage = userMessage;
  }
}

interface Reservation {
  readonly reservationId: string;
  readonly heldCounters: readonly CounterAddress[];
}

const zeroAmount: SpendAmount = { costNanos: 0, tokens: 0, images: 0 };

/**
 * Money held on the budgets for one piece of work (a reply, a command), and the only thing the
 * gateway client accepts as permission to send a request. Only the spend guard opens one
 * (`openSpendHold`, checked by a boundary test). Before each request the gateway asks the hold to
 * `cover` it, sized to what is actually sent (the prompt as it stands, tool results included, plus
 * `max_tokens`): when what is held does not reach that far, the hold is topped up on every budget
 * at once, or the request is refused with the budget's words. After each request the gateway
 * `record`s what it used, and `settle` counts all of it together.
 */
export class SpendHold {
  /** The model the work was admitted for: the one asked for, or the budget's fallback. */
  readonly model: string;
  readonly #account: HoldAccount;
  readonly #reservations: Reservation[] = [];
  /** What the budgets hold for this work, in all. */
  #reserved: SpendAmount;
  /** What the calls so far used, plus the worst case of calls still running. */
  #committed: SpendAmount = zeroAmount;
  #spent = { promptTokens: 0, completionTokens: 0, images: 0, costNanos: 0, requests: 0 };
  #isClosed = false;
  #hasPricedToolCalls = false;
  /** The tool calls that ran for this work, by tool name, for /usage. */
  #toolCalls: ToolCallCounts = {};
  /** What each model's calls cost (not tool prices): the server's spend by model. */
  #costByModel: Record<string, number> = {};

  private constructor({
    model,
    account,
    first,
  }: {
    model: string;
    account: HoldAccount;
    first: Reservation & { amount: SpendAmount };
  }) {
    this.model = model;
    this.#account = account;
    this.#reservations.push(first);
    this.#reserved = first.amount;
  }

  /** Opened by the spend guard only, around the reservation it has just made. */
  static open(options: {
    model: string;
    account: HoldAccount;
    first: Reservation & { amount: SpendAmount };
  }) {
    return new SpendHold(options);
  }

  /** Makes sure the budgets hold enough for one more call; throws `SpendLimitReachedError` if not. */
  async cover({ model, work }: GatewayCallWork): Promise<CoveredCall> {
    if (this.#isClosed) throw new Error('this spend hold is already settled; open a new one');
    const account = this.#account;
    const worst = amountFor({ catalog: account.catalog, model, work });
    const shortfall = subtract(add(this.#committed, worst), this.#reserved);
    if (shortfall.costNanos > 0 || shortfall.tokens > 0 || shortfall.images > 0) {
      const reservationId = randomUUID();
      const topUp = atLeastZero(shortfall);
      const at = account.now();
      const result = await account.ledger.hold({
        reservationId,
        subject: account.subject,
        amount: topUp,
        budgets: account.budgets,
        at,
        holdUntil: account.holdUntil,
      });
      if (!result.isHeld) {
        account.logger.info(
          { userId: account.subject.userId, budget: result.budget.rule, remaining: result.remaining },
          'a further model call refused by a budget',
        );
        throw new SpendLimitReachedError(
          account.describeRefusal({
            budget: result.budget,
            remaining: result.remaining,
            window: result.window,
            amount: topUp,
            work,
          }),
        );
      }
      this.#reservations.push({ reservationId, heldCounters: result.heldCounters });
      this.#reserved = add(this.#reserved, topUp);
    }
    this.#committed = add(this.#committed, worst);
    let isRecorded = false;
    return {
      record: (outcome) => {
        if (isRecorded) return;
        isRecorded = true;
        this.#committed = subtract(this.#committed, worst);
        this.#count({ model, work, outcome });
      },
    };
  }

  #count({ model, work, outcome }: { model: string; work: SpendWork; outcome: GatewayCallOutcome }) {
    if (work.kind === 'tool-call') {
      const costNanos = work.priceNanos * (outcome.toolCalls ?? 0);
      this.#committed = add(this.#committed, { costNanos, tokens: 0, images: 0 });
      this.#spent = { ...this.#spent, costNanos: this.#spent.costNanos + costNanos };
      this.#hasPricedToolCalls ||= costNanos > 0;
      return;
    }
    const images = outcome.images ?? 0;
    if (outcome.usage === undefined && images === 0) return;
    const price = priceOf(this.#account.catalog, model);
    const usage = outcome.usage;
    const costNanos =
      (usage ? usageCostNanos({ price, usage }) : 0) +
      (work.kind === 'images'
        ? imageCostNanos({
            price,
            count: images,
            aspectRatio: work.aspectRatio,
            outputFormat: work.outputFormat,
          })
        : 0);
    const tokens = usage ? usage.promptTokens + usage.completionTokens : 0;
    this.#costByModel = { ...this.#costByModel, [model]: (this.#costByModel[model] ?? 0) + costNanos };
    this.#committed = add(this.#committed, { costNanos, tokens, images });
    this.#spent = {
      promptTokens: this.#spent.promptTokens + (usage?.promptTokens ?? 0),
      completionTokens: this.#spent.completionTokens + (usage?.completionTokens ?? 0),
      images: this.#spent.images + images,
      costNanos: this.#spent.costNanos + costNanos,
      requests: this.#spent.requests + 1,
    };
  }

  /**
   * Counts a tool call that ran, free or priced, and whether it failed, so /usage can show which
   * tools the reply used. Its price, if any, is counted through `cover` like a gateway call.
   */
  countToolCall({ tool, isError }: { tool: string; isError: boolean }): void {
    if (this.#isClosed) return;
    this.#toolCalls = addToolCalls(this.#toolCalls, { [tool]: { calls: 1, errors: isError ? 1 : 0 } });
  }

  /** How many gateway calls this hold has counted so far. */
  get callCount(): number {
    return this.#spent.requests;
  }

  /**
   * Counts everything the calls used on every budget and drops what is still held; when no call
   * used anything, only drops the hold. Never rejects; a second call does nothing.
   */
  async settle(): Promise<void> {
    if (this.#isClosed) return;
    this.#isClosed = true;
    const { ledger } = this.#account;
    const [first, ...rest] = this.#reservations;
    if (first === undefined) return;
    const hasToolCalls = Object.keys(this.#toolCalls).length > 0;
    if (this.#spent.requests === 0 && !this.#hasPricedToolCalls && !hasToolCalls) {
      await ledger.release(first);
    } else {
      await ledger.settle({
        reservationId: first.reservationId,
        subject: this.#account.subject,
        heldCounters: first.heldCounters,
        spent: this.#spent,
        ...(hasToolCalls ? { toolCalls: this.#toolCalls } : {}),
        costByModel: this.#costByModel,
        at: this.#account.now(),
      });
    }
    await Promise.all(rest.map((reservation) => ledger.release(reservation)));
  }
}

function add(first: SpendAmount, second: SpendAmount): SpendAmount {
  return {
    costNanos: first.costNanos + second.costNanos,
    tokens: first.tokens + second.tokens,
    images: first.images + second.images,
  };
}

function subtract(first: SpendAmount, second: SpendAmount): SpendAmount {
  return {
    costNanos: first.costNanos - second.costNanos,
    tokens: first.tokens - second.tokens,
    images: first.images - second.images,
  };
}

function atLeastZero(amount: SpendAmount): SpendAmount {
  return {
    costNanos: Math.max(0, amount.costNanos),
    tokens: Math.max(0, amount.tokens),
    images: Math.max(0, amount.images),
  };
}
