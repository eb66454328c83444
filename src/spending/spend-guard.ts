import { randomUUID } from 'node:crypto';
import type { PlaceSettings, PlaceSettingsReader } from '../administration/place-settings.ts';
import type { AuditLog } from '../audit/audit-log.ts';

export type { SpendWork } from './budget-checks.ts';

import { type ConversationKey, placeOfConversation } from '../conversation/turn.ts';
import type { BudgetCheck, BudgetUse, SpendSubject, UsageLedger } from '../conversation/usage-ledger.ts';
import type { GatewayError } from '../gateway/gateway-error.ts';
import { capabilitiesOf, type ModelCatalog } from '../gateway/model-catalog.ts';
import type { Logger } from '../log.ts';
import { recordRefusal } from '../operations/metrics.ts';
import type { Deduper } from '../state/dedupe.ts';
import { amountFor, budgetsFor, type SpendWork } from './budget-checks.ts';
import { formatAmount, refusalMessage, warningMessage } from './budget-messages.ts';
import { describeDuration, describeReset } from './budget-periods.ts';
import { describeBudget } from './budget-rules.ts';
import type { RequestRate } from './spend-backend.ts';
import { SpendHold } from './spend-hold.ts';

export interface SpendRequest {
  readonly userId: string;
  /** The person's roles or user groups; those with a budget share it. */
  readonly roleIds: readonly string[];
  readonly conversationKey: ConversationKey;
  readonly model: string;
  readonly work: SpendWork;
  /** A chat reply may be answered by BUDGET_FALLBACK_MODEL when the budget cannot pay for `model`. */
  readonly mayFallBack?: boolean;
  /** The request carries images: a fallback must see them. */
  readonly needsVision?: boolean;
  /** How long the request may take: its hold lapses then if it is never settled. */
  readonly maxDurationMs: number;
  /** The place's settings as its turn read them; absent, they are read here. */
  readonly settings?: PlaceSettings;
}

export type Admission =
  | {
      readonly isAdmitted: true;
      /** The model to call: the one asked for, or the fallback. */
      readonly model: string;
      /** One-line notes for the person: the fallback model, a budget nearly used up. */
      readonly notes: readonly string[];
      /**
       * What the gateway client takes as leave to send, call by call (it tops itself up or refuses
       * when the work grows); `hold.settle()` counts what every call used and drops the rest.
       */
      readonly hold: SpendHold;
    }
  | {
      readonly isAdmitted: false;
      readonly message: string;
      /**
       * `budget`: a budget cannot pay (a scheduled run pauses); `rate`: too many requests just now;
       * `unavailable`: the budgets could not be read (both pass, so a scheduled run tries again).
       */
      readonly reason?: 'budget' | 'rate' | 'unavailable';
    };

/**
 * Budgets and the request rate, enforced before a request reaches the gateway: the request's worst
 * case is held on every budget that applies (the tightest decides), refused with the budget, what is
 * left and when it resets, or answered by the fallback model; after 80% of a budget the person is
 * told once per period.
 */
export interface SpendGuard {
  admit(request: SpendRequest): Promise<Admission>;
  /** The words for a failed gateway call; an empty balance is explained once per channel an hour. */
  describeFailure(request: { error: GatewayError; conversationKey: ConversationKey }): Promise<string>;
  /** Each budget that applies to the person here, with what is used and when it resets (for /usage). */
  standings(request: {
    userId: string;
    roleIds: readonly string[];
    conversationKey: ConversationKey;
  }): Promise<BudgetStanding[]>;
}

/** One budget as /usage shows it. */
export interface BudgetStanding {
  /** "your daily budget", "this channel's monthly budget". */
  readonly description: string;
  /** "0.40 of 1.00 left", "3 images of 4 left". */
  readonly left: string;
  /** "resets at midnight UTC, in 3 h". */
  readonly reset: string;
}

export interface SpendGuardDependencies {
  readonly ledger: UsageLedger;
  /** Where budget refusals are recorded, once per person an hour. */
  readonly audit?: AuditLog;
  readonly places: PlaceSettingsReader;
  readonly sightings: Deduper;
  readonly requestRate: RequestRate | undefined;
  readonly catalog: ModelCatalog;
  readonly timeZone: string;
  readonly fallbackModel: string | undefined;
  readonly logger: Logger;
  readonly now?: () => Date;
}

/** Share of a budget after which the person is warned, once per budget and period. */
const warningShare = 0.8;
const balanceNoticeIntervalMs = 60 * 60_000;

export function createSpendGuard(dependencies: SpendGuardDependencies): SpendGuard {
  const now = dependencies.now ?? (() => new Date());
  return {
    admit: (request) => admit(dependencies, request, now()),
    async describeFailure({ error, conversationKey }) {
      if (error.kind !== 'insufficient-balance') return error.userMessage;
      const place = placeOfConversation(conversationKey);
      const isFirst = await dependencies.sightings
        .isFirstSighting(
          `balance-notice:${place.platform}:${place.workspace}:${place.channel}`,
          balanceNoticeIntervalMs,
        )
        .catch(() => true);
      return isFirst ? error.userMessage : 'The model service has no balance left right now.';
    },
    async standings({ userId, roleIds, conversationKey }) {
      const at = now();
      const settings = await dependencies.places.settingsAt(placeOfConversation(conversationKey));
      const budgets = budgetsFor({ settings, roleIds });
      const subject: SpendSubject = {
        userId,
        conversationKey,
        budgetedRoleIds: budgets.flatMap((budget) => (budget.roleId === undefined ? [] : [budget.roleId])),
      };
      const uses = await dependencies.ledger.readBudgets({ subject, budgets, at });
      return uses.map((use) => ({
        description: describeBudget(
          use.budget.rule,
          use.budget.roleId === undefined ? undefined : 'a role of yours',
        ),
        left: `${formatAmount(use.budget.rule.measure, Math.max(0, use.budget.limit - use.used))} of ${formatAmount(use.budget.rule.measure, use.budget.limit)} left`,
        reset: describeReset({
          period: use.budget.rule.period,
          window: use.window,
          now: at,
          timeZone: dependencies.timeZone,
        }),
      }));
    },
  };
}

async function admit(
  dependencies: SpendGuardDependencies,
  request: SpendRequest,
  at: Date,
): Promise<Admission> {
  const { logger } = dependencies;
  const rate = await dependencies.requestRate?.take(request.userId).catch((error: unknown) => {
    logger.warn({ err: error }, 'the request rate could not be counted; letting the request through');
    return { isAllowed: true as const };
  });
  if (rate && !rate.isAllowed) {
    return {
      isAdmitted: false,
      reason: 'rate',
      message: `Slow down a little, please: you are sending requests faster than this server allows. Try again in ${describeDuration(rate.retryAfterMs)}.`,
    };
  }
  let settings: PlaceSettings;
  try {
    settings =
      request.settings ??
      (await dependencies.places.settingsAt(placeOfConversation(request.conversationKey)));
  } catch (error) {
    logger.error({ err: error }, 'budgets could not be read');
    return { isAdmitted: false, reason: 'unavailable', message: budgetsUnreadableMessage };
  }
  const budgets = budgetsFor({ settings, roleIds: request.roleIds });
  const subject: SpendSubject = {
    userId: request.userId,
    conversationKey: request.conversationKey,
    budgetedRoleIds: budgets.flatMap((budget) => (budget.roleId === undefined ? [] : [budget.roleId])),
  };
  const attempt = (model: string) =>
    holdFor({ dependencies, request, subject, budgets, model, at }).catch((error: unknown) => {
      logger.error({ err: error }, 'a budget hold failed');
      return undefined;
    });
  const first = await attempt(request.model);
  if (first === undefined)
    return { isAdmitted: false, reason: 'unavailable', message: budgetsUnreadableMessage };
  if (first.isHeld)
    return admitted({
      dependencies,
      request,
      subject,
      budgets,
      held: first,
      model: request.model,
      notes: [],
    });
  const fallback = dependencies.fallbackModel;
  const canFallBack =
    request.mayFallBack === true &&
    fallback !== undefined &&
    fallback !== request.model &&
    first.budget.rule.measure === 'cost' &&
    (!request.needsVision || capabilitiesOf(dependencies.catalog, fallback).vision);
  if (canFallBack && fallback !== undefined) {
    const second = await attempt(fallback);
    if (second?.isHeld) {
      logger.info(
        { model: request.model, fallback, userId: request.userId },
        'answered by the fallback model',
      );
      const note = `Answered by ${fallback}: ${describeBudget(first.budget.rule)} cannot pay for ${request.model} right now.`;
      return admitted({
        dependencies,
        request,
        subject,
        budgets,
        held: second,
        model: fallback,
        notes: [note],
      });
    }
  }
  logger.info(
    {
      userId: request.userId,
      conversationKey: request.conversationKey,
      budget: first.budget.rule,
      remaining: first.remaining,
    },
    'request refused by a budget',
  );
  recordRefusal({ kind: 'budget' });
  await recordBudgetRefusal({ dependencies, request, budget: describeBudget(first.budget.rule) });
  return {
    isAdmitted: false,
    reason: 'budget',
    message: refusalMessage({ refused: first, work: request.work, timeZone: dependencies.timeZone, at }),
  };
}

/** How often one person's budget refusals reach the audit trail: counted, not each one kept. */
const refusalAuditIntervalMs = 60 * 60_000;

async function recordBudgetRefusal({
  dependencies,
  request,
  budget,
}: {
  dependencies: SpendGuardDependencies;
  request: SpendRequest;
  budget: string;
}): Promise<void> {
  if (dependencies.audit === undefined) return;
  const place = placeOfConversation(request.conversationKey);
  const isFirst = await dependencies.sightings
    .isFirstSighting(
      `audit-budget:${place.platform}:${place.workspace}:${request.userId}`,
      refusalAuditIntervalMs,
    )
    .catch(() => false);
  if (!isFirst) return;
  await dependencies.audit.record({
    platform: place.platform,
    workspace: place.workspace,
    channel: place.channel,
    actor: { id: request.userId, name: request.userId },
    kind: 'budget-refused',
    what: `${request.model} refused by ${budget} (recorded once an hour)`,
    result: 'refused',
  });
}

const budgetsUnreadableMessage =
  'I cannot check the budget right now, so I did not send this to the model. Please try again in a moment.';

async function holdFor({
  dependencies,
  request,
  subject,
  budgets,
  model,
  at,
}: {
  dependencies: SpendGuardDependencies;
  request: SpendRequest;
  subject: SpendSubject;
  budgets: readonly BudgetCheck[];
  model: string;
  at: Date;
}) {
  const reservationId = randomUUID();
  const amount = amountFor({ catalog: dependencies.catalog, model, work: request.work });
  const result = await dependencies.ledger.hold({
    reservationId,
    subject,
    amount,
    budgets,
    at,
    holdUntil: new Date(at.getTime() + request.maxDurationMs),
  });
  return { ...result, reservationId, amount };
}

async function admitted({
  dependencies,
  request,
  subject,
  budgets,
  held,
  model,
  notes,
}: {
  dependencies: SpendGuardDependencies;
  request: SpendRequest;
  subject: SpendSubject;
  budgets: readonly BudgetCheck[];
  held: Extract<Awaited<ReturnType<typeof holdFor>>, { isHeld: true }>;
  model: string;
  notes: readonly string[];
}): Promise<Admission> {
  const now = dependencies.now ?? (() => new Date());
  const at = now();
  const warning = await budgetWarning({ dependencies, uses: held.uses, userId: request.userId, at });
  const hold = SpendHold.open({
    model,
    first: { reservationId: held.reservationId, heldCounters: held.heldCounters, amount: held.amount },
    account: {
      ledger: dependencies.ledger,
      catalog: dependencies.catalog,
      subject,
      budgets,
      holdUntil: new Date(at.getTime() + request.maxDurationMs),
      now,
      logger: dependencies.logger,
      describeRefusal: ({ work, ...refused }) =>
        refusalMessage({ refused, work, timeZone: dependencies.timeZone, at: now() }),
    },
  });
  return { isAdmitted: true, model, notes: warning ? [...notes, warning] : notes, hold };
}

/** The most used budget past 80%, said once per person, budget and period. */
async function budgetWarning({
  dependencies,
  uses,
  userId,
  at,
}: {
  dependencies: SpendGuardDependencies;
  uses: readonly BudgetUse[];
  userId: string;
  at: Date;
}): Promise<string | undefined> {
  const nearLimit = uses
    .filter((use) => use.budget.limit > 0 && use.used / use.budget.limit >= warningShare)
    .sort((first, second) => second.used / second.budget.limit - first.used / first.budget.limit);
  for (const use of nearLimit) {
    const key = `budget-warning:${use.counterKey}:${use.budget.rule.measure}:${userId}`;
    const ttlMs = Math.max(1_000, use.window.endsAt.getTime() - at.getTime());
    const isFirst = await dependencies.sightings.isFirstSighting(key, ttlMs).catch(() => false);
    if (!isFirst) continue;
    return warningMessage({ use, at, timeZone: dependencies.timeZone });
  }
  return undefined;
}
