import type { BudgetCheck, BudgetUse } from '../conversation/usage-ledger.ts';
import type { SpendWork } from './budget-checks.ts';
import { describeReset, type PeriodWindow } from './budget-periods.ts';
import { type BudgetMeasure, describeBudget } from './budget-rules.ts';
import { formatCost } from './prices.ts';
import type { SpendAmount } from './spend-store.ts';

export /** An amount of a measure in words: a cost, or a count of tokens or images. */
function formatAmount(measure: BudgetMeasure, value: number): string {
  if (measure === 'cost') return formatCost(value);
  const count = new Intl.NumberFormat('en-US').format(value);
  return measure === 'tokens' ? `${count} tokens` : `${count} ${value === 1 ? 'image' : 'images'}`;
}

/** "⚠ 84% of your daily budget is used; it resets at midnight UTC, in 3 h." */
export function warningMessage({
  use,
  at,
  timeZone,
}: {
  use: BudgetUse;
  at: Date;
  timeZone: string;
}): string {
  const percent = Math.min(100, Math.round((100 * use.used) / use.budget.limit));
  const reset = describeReset({ period: use.budget.rule.period, window: use.window, now: at, timeZone });
  return `⚠ ${percent}% of ${describeBudget(use.budget.rule)} is used; it ${reset}.`;
}

/** The refusal: which budget, what is left of it, what the request needed, and when it resets. */
export function refusalMessage({
  refused,
  work,
  timeZone,
  at,
}: {
  refused: { budget: BudgetCheck; remaining: number; window: PeriodWindow; amount: SpendAmount };
  work: SpendWork;
  timeZone: string;
  at: Date;
}): string {
  const { rule, limit } = refused.budget;
  const reset = describeReset({ period: rule.period, window: refused.window, now: at, timeZone });
  const amount = (value: number) => formatAmount(rule.measure, value);
  const needed =
    rule.measure === 'images' && work.kind === 'images'
      ? `; this needs ${amount(work.count)}`
      : rule.measure === 'cost'
        ? `; this needs up to ${formatCost(refused.amount.costNanos)}`
        : '';
  const budget = describeBudget(rule, refused.budget.roleId === undefined ? undefined : 'a role of yours');
  return `Not sent: ${budget} has ${amount(refused.remaining)} of ${amount(limit)} left${needed}. It ${reset}.`;
}
