import { TZDate } from '@date-fns/tz';
import { Cron } from 'croner';

/**
 * When a schedule runs: once at an instant, or on a cron pattern read in a time zone. Every instant
 * comes from croner (patterns, DST gaps and repeated hours) or from @date-fns/tz (a calendar date in
 * a zone); nothing here adds hours to wall-clock times by hand.
 */
export type ScheduleTiming =
  | { readonly kind: 'once'; readonly atMs: number }
  | { readonly kind: 'cron'; readonly pattern: string };

/**
 * A five-field cron pattern (minute hour day-of-month month day-of-week) in a zone, as croner reads it.
 * A fixed time in a DST gap runs at the first minute after the gap; a time that occurs twice runs once.
 */
export function cronIn(pattern: string, timeZone: string): Cron {
  return new Cron(pattern, { timezone: timeZone, paused: true, mode: '5-part' });
}

/** The first run strictly after `afterMs`, or undefined when there is none (a once that has passed). */
export function nextRunAfter({
  timing,
  timeZone,
  afterMs,
}: {
  timing: ScheduleTiming;
  timeZone: string;
  afterMs: number;
}): number | undefined {
  if (timing.kind === 'once') return timing.atMs > afterMs ? timing.atMs : undefined;
  return cronIn(timing.pattern, timeZone).nextRun(new Date(afterMs))?.getTime();
}

/** The shortest time between two runs of a pattern over the next `count` runs: the floor a cap can check. */
export function shortestInterval({
  pattern,
  timeZone,
  fromMs,
  count = 8,
}: {
  pattern: string;
  timeZone: string;
  fromMs: number;
  count?: number;
}): number {
  const runs = cronIn(pattern, timeZone)
    .nextRuns(count, new Date(fromMs))
    .map((run) => run.getTime());
  let shortest = Number.POSITIVE_INFINITY;
  for (let index = 1; index < runs.length; index += 1) {
    const current = runs[index];
    const previous = runs[index - 1];
    if (current !== undefined && previous !== undefined) shortest = Math.min(shortest, current - previous);
  }
  return shortest;
}

/** The date (year, month 0–11, day) a moment falls on in a zone, and the calendar date `days` later. */
export function calendarDayIn({
  atMs,
  timeZone,
  days = 0,
}: {
  atMs: number;
  timeZone: string;
  days?: number;
}): {
  readonly year: number;
  readonly month: number;
  readonly day: number;
} {
  const local = new TZDate(atMs, timeZone);
  // TZDate normalises an overflowing day (31 + 1) into the next month, in the zone's calendar.
  const shifted = new TZDate(local.getFullYear(), local.getMonth(), local.getDate() + days, timeZone);
  return { year: shifted.getFullYear(), month: shifted.getMonth(), day: shifted.getDate() };
}

/** The instant of a wall-clock time on a calendar date in a zone (TZDate resolves gaps and overlaps). */
export function instantOf({
  year,
  month,
  day,
  hour = 0,
  minute = 0,
  timeZone,
}: {
  year: number;
  month: number;
  day: number;
  hour?: number;
  minute?: number;
  timeZone: string;
}): number {
  return new TZDate(year, month, day, hour, minute, timeZone).getTime();
}

/** How a person reads a run's time where the schedule lives: `Mon 3 Mar, 09:00 (Europe/Berlin)`. */
export function describeInstant(atMs: number, timeZone: string): string {
  const text = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(new Date(atMs));
  return `${text} (${timeZone})`;
}
