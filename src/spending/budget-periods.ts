import { TZDate } from '@date-fns/tz';
import type { BudgetPeriod } from './budget-rules.ts';

/** One budget period: its name in counter keys, and the moment the next one starts. */
export interface PeriodWindow {
  /** `2026-11-04` for a day, `2026-11` for a month, as the calendar reads in the budget's time zone. */
  readonly label: string;
  readonly endsAt: Date;
}

/**
 * The day and month `at` falls in, in `timeZone` (days start at local midnight, months on the 1st).
 * @date-fns/tz does the zone arithmetic: a day is not always 24 hours where clocks change.
 */
export function periodsAt({
  at,
  timeZone,
}: {
  at: Date;
  timeZone: string;
}): Readonly<Record<BudgetPeriod, PeriodWindow>> {
  const local = new TZDate(at.getTime(), timeZone);
  const year = local.getFullYear();
  const month = local.getMonth();
  const date = local.getDate();
  const monthLabel = `${year}-${String(month + 1).padStart(2, '0')}`;
  return {
    day: {
      label: `${monthLabel}-${String(date).padStart(2, '0')}`,
      endsAt: new Date(new TZDate(year, month, date + 1, timeZone).getTime()),
    },
    month: { label: monthLabel, endsAt: new Date(new TZDate(year, month + 1, 1, timeZone).getTime()) },
  };
}

/** How long a counter of a period is kept: a little past the period, so /usage can still read it. */
export const counterTtlMsByPeriod: Readonly<Record<BudgetPeriod, number>> = {
  day: 40 * 24 * 60 * 60_000,
  month: 400 * 24 * 60 * 60_000,
};

/** "resets at midnight UTC, in 3 h 20 min" or "resets on 1 December (Europe/Berlin)". */
export function describeReset({
  period,
  window,
  now,
  timeZone,
}: {
  period: BudgetPeriod;
  window: PeriodWindow;
  now: Date;
  timeZone: string;
}): string {
  if (period === 'day') {
    return `resets at midnight ${timeZone}, in ${describeDuration(window.endsAt.getTime() - now.getTime())}`;
  }
  const day = new Intl.DateTimeFormat('en-GB', { timeZone, day: 'numeric', month: 'long' }).format(
    window.endsAt,
  );
  return `resets on ${day} (${timeZone})`;
}

/** `3 h 20 min`, `12 min`, `40 s`. */
export function describeDuration(milliseconds: number): string {
  const totalMinutes = Math.floor(Math.max(0, milliseconds) / 60_000);
  if (totalMinutes === 0) return `${Math.max(1, Math.ceil(milliseconds / 1000))} s`;
  const hours = Math.floor(totalMinutes / 60);
  const minutes = totalMinutes % 60;
  if (hours === 0) return `${minutes} min`;
  return minutes === 0 ? `${hours} h` : `${hours} h ${minutes} min`;
}
