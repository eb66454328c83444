import { TZDate } from '@date-fns/tz';
import type { BudgetPeriod } from './budget-rules.ts';

/** One budget period: its name in counter keys, and the moment the next one starts. */
export interface PeriodWindow {
  /** `2026-11-04` for a day, `2026-11` for a month, as the calendar reads in the budget's time zone. */
  readonly label: string;
  readonly endsAt: Date;
}

/** The windows of the day last asked for in a time zone, and the instants that day spans there. */
interface CachedDay {
  readonly startsAtMs: number;
  readonly endsAtMs: number;
  readonly dayLabel: string;
  readonly monthLabel: string;
  readonly monthEndsAtMs: number;
}

/** Budgets use one time zone, or a few: this bound only keeps a stray caller from growing it. */
const cachedTimeZoneLimit = 32;
const cachedDayByTimeZone = new Map<string, CachedDay>();

/**
 * The day and month `at` falls in, in `timeZone` (days start at local midnight, months on the 1st).
 * @date-fns/tz does the zone arithmetic: a day is not always 24 hours where clocks change.
 *
 * Every reply asks (its hold and its settle), and building the TZDates showed in profiles at 500
 * replies at once (issue 24), so the answer is kept per time zone for the day it was computed for:
 * both windows stay the same from the first instant of that local day until its `endsAt`, so an
 * `at` in that span gets them without any zone arithmetic. An `at` outside it (the next day, or a
 * look back at an earlier one) computes afresh and keeps that day instead.
 */
export function periodsAt({
  at,
  timeZone,
}: {
  at: Date;
  timeZone: string;
}): Readonly<Record<BudgetPeriod, PeriodWindow>> {
  const atMs = at.getTime();
  const cached = cachedDayByTimeZone.get(timeZone);
  if (cached !== undefined && atMs >= cached.startsAtMs && atMs < cached.endsAtMs) return windowsOf(cached);
  const day = dayAt(atMs, timeZone);
  // Kept only when the span checks out (its first and last instants are both this day in the zone),
  // so a zone whose midnight TZDate placed wrongly is computed every time rather than answered wrong.
  if (
    day.dayLabel === dayLabelAt(day.startsAtMs, timeZone) &&
    day.dayLabel === dayLabelAt(day.endsAtMs - 1, timeZone)
  ) {
    cachedDayByTimeZone.delete(timeZone);
    cachedDayByTimeZone.set(timeZone, day);
    if (cachedDayByTimeZone.size > cachedTimeZoneLimit) {
      const oldest = cachedDayByTimeZone.keys().next().value;
      if (oldest !== undefined) cachedDayByTimeZone.delete(oldest);
    }
  }
  return windowsOf(day);
}

function dayAt(atMs: number, timeZone: string): CachedDay {
  const local = new TZDate(atMs, timeZone);
  const year = local.getFullYear();
  const month = local.getMonth();
  const date = local.getDate();
  return {
    startsAtMs: new TZDate(year, month, date, timeZone).getTime(),
    endsAtMs: new TZDate(year, month, date + 1, timeZone).getTime(),
    dayLabel: labelOf(year, month, date),
    monthLabel: labelOf(year, month),
    monthEndsAtMs: new TZDate(year, month + 1, 1, timeZone).getTime(),
  };
}

function dayLabelAt(atMs: number, timeZone: string): string {
  const local = new TZDate(atMs, timeZone);
  return labelOf(local.getFullYear(), local.getMonth(), local.getDate());
}

/** `2026-11` for a month (`month` counted from 0, as Date does), `2026-11-04` with a date. */
function labelOf(year: number, month: number, date?: number): string {
  const monthLabel = `${year}-${String(month + 1).padStart(2, '0')}`;
  return date === undefined ? monthLabel : `${monthLabel}-${String(date).padStart(2, '0')}`;
}

// New Dates every time: a caller that changed one (setTime) must not change another caller's window.
function windowsOf(day: CachedDay): Readonly<Record<BudgetPeriod, PeriodWindow>> {
  return {
    day: { label: day.dayLabel, endsAt: new Date(day.endsAtMs) },
    month: { label: day.monthLabel, endsAt: new Date(day.monthEndsAtMs) },
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
