import type { PlacePeriodSpend } from '../conversation/usage-ledger.ts';
import { addToolCalls } from '../spending/spend-store.ts';

/** How the Spend page groups the server's spending over time. */
export const spendGroupings = ['day', 'week', 'month'] as const;
export type SpendGrouping = (typeof spendGroupings)[number];

/** One point of the chart and row of its table: when it starts, its label, and what was spent. */
export interface SpendPeriod extends PlacePeriodSpend {
  /** The first day of the period (`2026-11-02`), where the chart puts it. */
  readonly start: string;
}

/**
 * The server's spending by the grouping asked: each day; each week (Monday to Sunday) as the sum of
 * its days that are still kept; each month as its own month counter (kept 13 months, where days
 * are kept 40 days).
 */
export function groupSpend({
  grouping,
  days,
  months,
}: {
  grouping: SpendGrouping;
  days: readonly PlacePeriodSpend[];
  months: readonly PlacePeriodSpend[];
}): SpendPeriod[] {
  if (grouping === 'day') return days.map((day) => ({ ...day, start: day.label }));
  if (grouping === 'month') return months.map((month) => ({ ...month, start: `${month.label}-01` }));
  const weeks = new Map<string, SpendPeriod>();
  for (const day of days) {
    const monday = mondayOf(day.label);
    const week = weeks.get(monday);
    weeks.set(
      monday,
      week === undefined
        ? { ...day, label: `week of ${monday}`, start: monday }
        : {
            ...week,
            costNanos: week.costNanos + day.costNanos,
            requests: week.requests + day.requests,
            costByModel: addCosts(week.costByModel, day.costByModel),
            toolCalls: addToolCalls(week.toolCalls, day.toolCalls),
          },
    );
  }
  return [...weeks.values()];
}

/** The Monday on or before a day label (`YYYY-MM-DD`, a calendar date, so read as UTC). */
function mondayOf(label: string): string {
  const date = new Date(`${label}T00:00:00Z`);
  const daysSinceMonday = (date.getUTCDay() + 6) % 7;
  return new Date(date.getTime() - daysSinceMonday * 24 * 60 * 60_000).toISOString().slice(0, 10);
}

function addCosts(
  first: Readonly<Record<string, number>>,
  second: Readonly<Record<string, number>>,
): Record<string, number> {
  const sum: Record<string, number> = { ...first };
  for (const [model, costNanos] of Object.entries(second)) sum[model] = (sum[model] ?? 0) + costNanos;
  return sum;
}
