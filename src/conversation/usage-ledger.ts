import type { Logger } from '../log.ts';
import { counterTtlMsByPeriod, type PeriodWindow, periodsAt } from '../spending/budget-periods.ts';
import type { BudgetMeasure, BudgetPeriod, BudgetRule } from '../spending/budget-rules.ts';
import { createPersonScopes, type PersonScopes } from '../spending/person-scopes.ts';
import {
  amountIn,
  type CounterAddress,
  type CounterState,
  type LimitedCounter,
  noSpending,
  type SpendAmount,
  type SpendStore,
  type SpentTotals,
  spentIn,
  type ToolCallCounts,
} from '../spending/spend-store.ts';
import { type ConversationKey, type ConversationPlace, placeOfConversation } from './turn.ts';

/** The server's rankings: who, which channels, and which models spent most in a day or month. */
export type RankingKind = 'users' | 'channels' | 'models';

/** A server's spending in one day or month, for the console's chart: cost, by model, tool calls. */
export interface PlacePeriodSpend {
  /** The period's label in the budget time zone: `2026-11-04`, or `2026-11`. */
  readonly label: string;
  readonly costNanos: number;
  readonly requests: number;
  /** The models' cost by model (tool prices are in `costNanos` only). */
  readonly costByModel: Readonly<Record<string, number>>;
  readonly toolCalls: ToolCallCounts;
}

/** What was spent in one period: gateway requests, tokens from `usage`, images, and their cost. */
export interface UsageTotals {
  readonly requests: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly totalTokens: number;
  readonly images: number;
  /** In billionths of a cost unit. */
  readonly costNanos: number;
  /** The tool calls that ran, by tool name, with how many failed. */
  readonly toolCalls: ToolCallCounts;
}

export interface UsageReport {
  readonly user: { readonly today: UsageTotals; readonly month: UsageTotals };
  readonly conversation: { readonly today: UsageTotals; readonly month: UsageTotals };
}

/** Whose spending a request is: the person, where they are, and the roles that have budgets. */
export interface SpendSubject {
  readonly userId: string;
  readonly conversationKey: ConversationKey;
  /** Roles (or Slack user groups) of the person that have a budget of their own. */
  readonly budgetedRoleIds: readonly string[];
}

/** One budget that applies to a request, with its limit in the measure's units (cost in nanos). */
export interface BudgetCheck {
  readonly rule: BudgetRule;
  readonly limit: number;
  /** For a role budget: the role it belongs to. */
  readonly roleId?: string;
}

/** How far a budget is used once the hold is counted in. */
export interface BudgetUse {
  readonly budget: BudgetCheck;
  /** Spent plus held, in the measure's units. */
  readonly used: number;
  /** The counter's key, for "warn once per budget and period". */
  readonly counterKey: string;
  readonly window: PeriodWindow;
}

export type HoldResult =
  | {
      readonly isHeld: true;
      /** Where the hold sits, for settle and release. */
      readonly heldCounters: readonly CounterAddress[];
      readonly uses: readonly BudgetUse[];
    }
  | {
      readonly isHeld: false;
      readonly budget: BudgetCheck;
      /** What is left of the budget, in its measure's units (cost in nanos). */
      readonly remaining: number;
      readonly window: PeriodWindow;
    };

/**
 * Spending per person, conversation, channel, server, role and the whole process, by day and month
 * in BUDGET_TIMEZONE, as counters in the spend store. A request holds its worst case on the budgets
 * that apply before it calls the gateway, and settles what the gateway reported afterwards; /usage
 * reads the same counters.
 */
export interface UsageLedger {
  /** Who counts as one person for personal budgets; a platform registers its rule here. */
  readonly personScopes: PersonScopes;
  hold(request: {
    reservationId: string;
    subject: SpendSubject;
    amount: SpendAmount;
    budgets: readonly BudgetCheck[];
    at: Date;
    holdUntil: Date;
  }): Promise<HoldResult>;
  /**
   * Adds what a request spent to every counter of its subject and drops its hold. Never rejects: a
   * store failure is logged, because the reply it counts was already delivered.
   */
  settle(request: {
    reservationId: string;
    subject: SpendSubject;
    heldCounters: readonly CounterAddress[];
    /** What was spent; `requests` (the gateway calls made) defaults to one. */
    spent: Omit<SpentTotals, 'requests'> & { readonly requests?: number };
    /** The tool calls the work ran, counted beside the spending. */
    toolCalls?: ToolCallCounts;
    /** What each model's calls cost, for the server's spend by model (rankings in the same write). */
    costByModel?: Readonly<Record<string, number>>;
    at: Date;
  }): Promise<void>;
  /** Drops a hold whose request never reached the gateway or failed there. Never rejects. */
  release(request: { reservationId: string; heldCounters: readonly CounterAddress[] }): Promise<void>;
  report(query: { userId: string; conversationKey: ConversationKey; at: Date }): Promise<UsageReport>;
  /**
   * A whole server's (or workspace's) totals today and this month, tool calls by tool included: its
   * counters as each reply already writes them, read, never scanned (the owner's console).
   */
  placeReport(query: { platform: string; workspace: string; at: Date }): Promise<{
    readonly today: UsageTotals;
    readonly month: UsageTotals;
  }>;
  /**
   * What each of these roles spent in the server today and this month: the counters a reply writes
   * for the roles of its asker that have a budget (BUDGET_ROLE_DAILY, BUDGET_ROLE_MONTHLY), read.
   */
  roleSpend(query: {
    platform: string;
    workspace: string;
    roleIds: readonly string[];
    at: Date;
  }): Promise<
    ReadonlyArray<{ readonly roleId: string; readonly todayNanos: number; readonly monthNanos: number }>
  >;
  /**
   * A server's spending day by day (the last `days`, at most the 40 its daily counters are kept) and
   * month by month (the last `months`, at most 13), oldest first, with its cost by model and its tool
   * calls: the counters and rankings every reply already writes, read.
   */
  placeHistory(query: {
    platform: string;
    workspace: string;
    at: Date;
    days: number;
    months: number;
  }): Promise<{
    readonly days: readonly PlacePeriodSpend[];
    readonly months: readonly PlacePeriodSpend[];
  }>;
  /** Totals of any scope's counters now, e.g. to show what is left of each budget. */
  readBudgets(query: {
    subject: SpendSubject;
    budgets: readonly BudgetCheck[];
    at: Date;
  }): Promise<BudgetUse[]>;
  /**
   * Takes a person's name off the top-spender lists of these servers, for every day and month still
   * kept: their spending stays in the lists as `forgotten` (/forget). Their own counters stay until
   * their periods end: they hold only sums, and the person's budgets are counted on them; the tool
   * calls on them go, staying counted only in the place's counters.
   */
  forgetPerson(request: {
    userId: string;
    platform: string;
    workspaces: readonly string[];
    at: Date;
  }): Promise<void>;
  /** The people or channels of a server that spent the most in the period. */
  top(query: {
    platform: string;
    workspace: string;
    kind: RankingKind;
    period: BudgetPeriod;
    at: Date;
    count: number;
  }): Promise<Array<{ readonly id: string; readonly costNanos: number }>>;
}

/** A counter with its limits, and the budget each limit comes from. */
interface BudgetCounter extends LimitedCounter {
  readonly sources: Readonly<Partial<Record<BudgetMeasure, BudgetCheck>>>;
  readonly window: PeriodWindow;
}

/** The counter key of a scope in a period, e.g. `user:U1:day:2026-11-04`. */
function scopeKey({
  budget,
  place,
  person,
}: {
  budget: Pick<BudgetCheck, 'rule' | 'roleId'>;
  /** The subject's place, worked out once for all its budgets. */
  place: ConversationPlace;
  /** The person's counter scope (`PersonScopes`), worked out once. */
  person: string;
}) {
  switch (budget.rule.scope) {
    case 'user':
      return person;
    case 'role':
      return `role:${place.platform}:${place.workspace}:${budget.roleId ?? ''}`;
    case 'channel':
      return `channel:${place.platform}:${place.workspace}:${place.channel}`;
    case 'server':
      return `server:${place.platform}:${place.workspace}`;
    case 'global':
      return 'global';
  }
}

export function createUsageLedger({
  store,
  timeZone,
  logger,
  personScopes = createPersonScopes(),
}: {
  store: SpendStore;
  timeZone: string;
  logger: Logger;
  personScopes?: PersonScopes;
}): UsageLedger {
  const counterOf = (scope: string, period: BudgetPeriod, windows: Record<BudgetPeriod, PeriodWindow>) => ({
    key: `${scope}:${period}:${windows[period].label}`,
    ttlMs: counterTtlMsByPeriod[period],
  });
  const limitedCounters = (
    subject: SpendSubject,
    person: string,
    budgets: readonly BudgetCheck[],
    at: Date,
  ) => {
    const windows = periodsAt({ at, timeZone });
    const place = placeOfConversation(subject.conversationKey);
    const byKey = new Map<string, BudgetCounter>();
    for (const budget of budgets) {
      const { key, ttlMs } = counterOf(scopeKey({ budget, place, person }), budget.rule.period, windows);
      const existing = byKey.get(key) ?? {
        key,
        ttlMs,
        limits: {},
        sources: {},
        window: windows[budget.rule.period],
      };
      const current = existing.sources[budget.rule.measure];
      // Two budgets on one counter and measure (a channel override and the default): the tighter wins.
      if (current !== undefined && current.limit <= budget.limit) continue;
      byKey.set(key, {
        ...existing,
        limits: { ...existing.limits, [budget.rule.measure]: budget.limit },
        sources: { ...existing.sources, [budget.rule.measure]: budget },
      });
    }
    return [...byKey.values()];
  };
  const usesOf = (
    subject: SpendSubject,
    person: string,
    budgets: readonly BudgetCheck[],
    at: Date,
    stateOfKey: (key: string) => CounterState | undefined,
  ): BudgetUse[] => {
    const windows = periodsAt({ at, timeZone });
    const place = placeOfConversation(subject.conversationKey);
    return budgets.map((budget) => {
      const { key } = counterOf(scopeKey({ budget, place, person }), budget.rule.period, windows);
      const state = stateOfKey(key);
      const used = state
        ? spentIn(state.spent, budget.rule.measure) + amountIn(state.held, budget.rule.measure)
        : 0;
      return { budget, used, counterKey: key, window: windows[budget.rule.period] };
    });
  };
  const totalsOf = async (keys: readonly string[], at: Date) => {
    const [states, toolCalls] = await Promise.all([
      store.read({ keys, nowMs: at.getTime() }),
      store.readToolCalls({ keys }),
    ]);
    return states.map((state, index) => toTotals(state.spent, toolCalls[index] ?? {}));
  };

  return {
    personScopes,
    async hold({ reservationId, subject, amount, budgets, at, holdUntil }) {
      const person = await personScopes.scopeOf(subject);
      const counters = limitedCounters(subject, person, budgets, at);
      if (counters.length === 0) return { isHeld: true, heldCounters: [], uses: [] };
      const outcome = await store.hold({
        reservationId,
        amount,
        counters,
        nowMs: at.getTime(),
        holdUntilMs: holdUntil.getTime(),
      });
      if (!outcome.isHeld) {
        const counter = counters[outcome.counterIndex] ?? counters[0];
        const budget = counter?.sources[outcome.measure] ?? budgets[0];
        if (!counter || !budget) throw new Error('a refused hold named no budget');
        const used =
          spentIn(outcome.state.spent, outcome.measure) + amountIn(outcome.state.held, outcome.measure);
        return { isHeld: false, budget, remaining: Math.max(0, budget.limit - used), window: counter.window };
      }
      const states = new Map(counters.map((counter, index) => [counter.key, outcome.states[index]]));
      return {
        isHeld: true,
        heldCounters: counters.map(({ key, ttlMs }) => ({ key, ttlMs })),
        uses: usesOf(subject, person, budgets, at, (key) => states.get(key)),
      };
    },
    async settle({ reservationId, subject, heldCounters, spent, toolCalls, costByModel = {}, at }) {
      const windows = periodsAt({ at, timeZone });
      const place = placeOfConversation(subject.conversationKey);
      const person = await personScopes.scopeOf(subject).catch((error: unknown) => {
        logger.warn({ err: error }, 'the person scope could not be read; counting by user id');
        return `user:${subject.userId}`;
      });
      const scopes = [
        person,
        `conversation:${subject.conversationKey}`,
        `channel:${place.platform}:${place.workspace}:${place.channel}`,
        `server:${place.platform}:${place.workspace}`,
        'global',
        ...subject.budgetedRoleIds.map((roleId) => `role:${place.platform}:${place.workspace}:${roleId}`),
      ];
      const periods: BudgetPeriod[] = ['day', 'month'];
      try {
        await store.settle({
          reservationId,
          heldCounters,
          counters: scopes.flatMap((scope) => periods.map((period) => counterOf(scope, period, windows))),
          spent: { ...spent, requests: spent.requests ?? 1 },
          ...(toolCalls === undefined ? {} : { toolCalls }),
          rankings: periods.flatMap((period) => [
            {
              ...rankingOf({ place, kind: 'users', period, window: windows[period] }),
              member: subject.userId,
            },
            {
              ...rankingOf({ place, kind: 'channels', period, window: windows[period] }),
              member: place.channel,
            },
            ...Object.entries(costByModel)
              .filter(([, costNanos]) => costNanos > 0)
              .map(([model, costNanos]) => ({
                ...rankingOf({ place, kind: 'models', period, window: windows[period] }),
                member: model,
                costNanos,
              })),
          ]),
        });
      } catch (error) {
        logger.warn({ err: error, userId: subject.userId }, 'spending not recorded');
      }
    },
    async release({ reservationId, heldCounters }) {
      if (heldCounters.length === 0) return;
      await store.release({ reservationId, heldCounters }).catch((error: unknown) => {
        // The hold lapses on its own at its time; until then it only makes the budget stricter.
        logger.warn({ err: error }, 'a spending hold was not released');
      });
    },
    async report({ userId, conversationKey, at }) {
      const windows = periodsAt({ at, timeZone });
      const person = await personScopes.scopeOf({ userId, conversationKey });
      const keys = [person, `conversation:${conversationKey}`].flatMap((scope) => [
        counterOf(scope, 'day', windows).key,
        counterOf(scope, 'month', windows).key,
      ]);
      const [userToday, userMonth, conversationToday, conversationMonth] = await totalsOf(keys, at);
      const empty = toTotals(noSpending, {});
      return {
        user: { today: userToday ?? empty, month: userMonth ?? empty },
        conversation: { today: conversationToday ?? empty, month: conversationMonth ?? empty },
      };
    },
    async placeReport({ platform, workspace, at }) {
      const windows = periodsAt({ at, timeZone });
      const scope = `server:${platform}:${workspace}`;
      const keys = [counterOf(scope, 'day', windows).key, counterOf(scope, 'month', windows).key];
      const [today, month] = await totalsOf(keys, at);
      const empty = toTotals(noSpending, {});
      return { today: today ?? empty, month: month ?? empty };
    },
    async roleSpend({ platform, workspace, roleIds, at }) {
      const windows = periodsAt({ at, timeZone });
      const keys = roleIds.flatMap((roleId) => {
        const scope = `role:${platform}:${workspace}:${roleId}`;
        return [counterOf(scope, 'day', windows).key, counterOf(scope, 'month', windows).key];
      });
      const states = keys.length === 0 ? [] : await store.read({ keys, nowMs: at.getTime() });
      return roleIds.map((roleId, index) => ({
        roleId,
        todayNanos: states[index * 2]?.spent.costNanos ?? 0,
        monthNanos: states[index * 2 + 1]?.spent.costNanos ?? 0,
      }));
    },
    async placeHistory({ platform, workspace, at, days, months }) {
      const dayMs = 24 * 60 * 60_000;
      const place = { platform, workspace };
      const scope = `server:${platform}:${workspace}`;
      const dayWindows = Array.from({ length: Math.min(Math.max(days, 0), 40) }, (_, index) =>
        periodsAt({ at: new Date(at.getTime() - index * dayMs), timeZone }),
      );
      // Every month is at least 28 days long, so steps of 10 days back meet each one.
      const monthWindows = new Map<string, ReturnType<typeof periodsAt>>();
      const monthCount = Math.min(Math.max(months, 0), 13);
      for (let daysBack = 0; monthWindows.size < monthCount; daysBack += 10) {
        const windows = periodsAt({ at: new Date(at.getTime() - daysBack * dayMs), timeZone });
        if (!monthWindows.has(windows.month.label)) monthWindows.set(windows.month.label, windows);
      }
      const periods = [
        ...dayWindows.reverse().map((windows) => ({ period: 'day' as const, windows })),
        ...[...monthWindows.values()].reverse().map((windows) => ({ period: 'month' as const, windows })),
      ];
      const keys = periods.map(({ period, windows }) => counterOf(scope, period, windows).key);
      const [states, toolCalls, rankings] = await Promise.all([
        keys.length === 0 ? [] : store.read({ keys, nowMs: at.getTime() }),
        keys.length === 0 ? [] : store.readToolCalls({ keys }),
        Promise.all(
          periods.map(({ period, windows }) =>
            store.readRanking({
              key: rankingOf({ place, kind: 'models', period, window: windows[period] }).key,
              count: 50,
            }),
          ),
        ),
      ]);
      const spendOf = (index: number): PlacePeriodSpend => {
        const { period, windows } = periods[index] ?? { period: 'day', windows: periodsAt({ at, timeZone }) };
        return {
          label: windows[period].label,
          costNanos: states[index]?.spent.costNanos ?? 0,
          requests: states[index]?.spent.requests ?? 0,
          costByModel: Object.fromEntries(
            (rankings[index] ?? []).map((ranked) => [ranked.member, ranked.costNanos]),
          ),
          toolCalls: toolCalls[index] ?? {},
        };
      };
      return {
        days: dayWindows.map((_, index) => spendOf(index)),
        months: [...monthWindows.keys()].map((_, index) => spendOf(dayWindows.length + index)),
      };
    },
    async readBudgets({ subject, budgets, at }) {
      const person = await personScopes.scopeOf(subject);
      const counters = limitedCounters(subject, person, budgets, at);
      const states = await store.read({ keys: counters.map((counter) => counter.key), nowMs: at.getTime() });
      const byKey = new Map(counters.map((counter, index) => [counter.key, states[index]]));
      return usesOf(subject, person, budgets, at, (key) => byKey.get(key));
    },
    async forgetPerson({ userId, platform, workspaces, at }) {
      const keys = new Set<string>();
      const dayMs = 24 * 60 * 60_000;
      for (const workspace of workspaces) {
        // Every daily list still kept (40 days) and every monthly one (400 days).
        for (let daysBack = 0; daysBack <= 400; daysBack += 1) {
          const windows = periodsAt({ at: new Date(at.getTime() - daysBack * dayMs), timeZone });
          const periods: BudgetPeriod[] = daysBack <= 40 ? ['day', 'month'] : ['month'];
          for (const period of periods) {
            const place = { platform, workspace };
            keys.add(rankingOf({ place, kind: 'users', period, window: windows[period] }).key);
          }
        }
      }
      // Which tools the person used is theirs: their own counters lose it, while the conversation,
      // channel, server and process counters keep the calls without a name.
      const ownCounters = new Set<string>();
      const personScopesHere = new Set([
        `user:${userId}`,
        ...(await Promise.all(
          workspaces.map((workspace) => personScopes.scopeAt({ userId, place: { platform, workspace } })),
        )),
      ]);
      for (let daysBack = 0; daysBack <= 400; daysBack += 1) {
        const windows = periodsAt({ at: new Date(at.getTime() - daysBack * dayMs), timeZone });
        const periods: BudgetPeriod[] = daysBack <= 40 ? ['day', 'month'] : ['month'];
        for (const period of periods) {
          for (const scope of personScopesHere) ownCounters.add(counterOf(scope, period, windows).key);
        }
      }
      await Promise.all([
        store.renameRankingMember({ keys: [...keys], member: userId, to: forgottenMember }),
        store.forgetToolCalls({ keys: [...ownCounters] }),
      ]);
    },
    async top({ platform, workspace, kind, period, at, count }) {
      const window = periodsAt({ at, timeZone })[period];
      const ranked = await store.readRanking({
        key: rankingOf({ place: { platform, workspace }, kind, period, window }).key,
        count,
      });
      return ranked.map(({ member, costNanos }) => ({ id: member, costNanos }));
    },
  };
}

/** Who a forgotten person's spending is listed as in the top lists. */
export const forgottenMember = 'forgotten';

function rankingOf({
  place,
  kind,
  period,
  window,
}: {
  place: { platform: string; workspace: string };
  kind: RankingKind;
  period: BudgetPeriod;
  window: PeriodWindow;
}): CounterAddress {
  return {
    key: `top-${kind}:${place.platform}:${place.workspace}:${period}:${window.label}`,
    ttlMs: counterTtlMsByPeriod[period],
  };
}

function toTotals(spent: SpentTotals, toolCalls: ToolCallCounts): UsageTotals {
  return {
    requests: spent.requests,
    promptTokens: spent.promptTokens,
    completionTokens: spent.completionTokens,
    totalTokens: spent.promptTokens + spent.completionTokens,
    images: spent.images,
    costNanos: spent.costNanos,
    toolCalls,
  };
}
