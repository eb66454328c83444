import { TZDate } from '@date-fns/tz';
import { calendarDayIn, cronIn, instantOf, nextRunAfter, type ScheduleTiming } from './schedule-timing.ts';

/**
 * The "when" at the start of `/remind` and `/schedule` text, read by a small grammar; what follows
 * it is what to do. Phrases it knows (case does not matter):
 *
 * - `in 2h`, `in 90 minutes`, `in 1h 30m`, `in 3 days`, `in 2 weeks`        once
 * - `at 9:00`, `9:00`, `today 17:30`, `tomorrow 9:00`, `tomorrow at 9am`      once, next such time
 * - `monday 10:00`, `on friday at 5pm`                                       once, the next such day
 * - `2026-03-29 02:30`                                                       once, that date
 * - `every day 8:00`, `daily at 8:00`, `every weekday 09:00`, `every weekend 10:00`
 * - `every monday 10:00`, `every mon, wed and fri at 9am`                    weekly
 * - `every hour`, `every 15 minutes`, `every 2 hours`                        intervals
 * - `cron 0 9 * * 1-5`                                                       any five-field pattern
 *
 * Wall-clock times are read in the person's or place's time zone. The instants themselves come
 * from croner and @date-fns/tz (schedule-timing.ts).
 */
export type WhenParse =
  | {
      readonly isValid: true;
      readonly timing: ScheduleTiming;
      /** The words that said when, as typed (trimmed). */
      readonly whenText: string;
      /** What follows: the reminder's text, or the prompt or command to run. */
      readonly rest: string;
    }
  | { readonly isValid: false; readonly problem: string };

export const whenExamples =
  '"in 2h", "tomorrow 9:00", "friday 17:00", "every Monday 10:00", "every weekday 09:00", "every 30 minutes" or "cron 0 9 * * 1-5"';

const weekdayNumbers: Readonly<Record<string, number>> = {
  sun: 0,
  sunday: 0,
  mon: 1,
  monday: 1,
  tue: 2,
  tues: 2,
  tuesday: 2,
  wed: 3,
  wednesday: 3,
  thu: 4,
  thur: 4,
  thurs: 4,
  thursday: 4,
  fri: 5,
  friday: 5,
  sat: 6,
  saturday: 6,
};

const weekdayWord = `(?:${Object.keys(weekdayNumbers)
  .sort((first, second) => second.length - first.length)
  .join('|')})s?`;
/** `9`, `9:00`, `09:30`, `9am`, `5:30 pm`, each optionally after `at`. */
const clock = String.raw`(?:at\s+)?(\d{1,2})(?::(\d{2}))?\s*(am|pm)?`;
const end = String.raw`(?=\s|$)`;

interface Clock {
  readonly hour: number;
  readonly minute: number;
}

function clockOf(hourText: string | undefined, minuteText: string | undefined, meridiem: string | undefined) {
  if (hourText === undefined) return undefined;
  let hour = Number.parseInt(hourText, 10);
  const minute = minuteText === undefined ? 0 : Number.parseInt(minuteText, 10);
  // A bare number ("in the morning at 9") needs am/pm or minutes to be a time, not a count.
  if (minuteText === undefined && meridiem === undefined) return undefined;
  if (meridiem !== undefined) {
    if (hour < 1 || hour > 12) return undefined;
    hour = (hour % 12) + (meridiem.toLowerCase() === 'pm' ? 12 : 0);
  }
  if (hour > 23 || minute > 59) return undefined;
  return { hour, minute } satisfies Clock;
}

function weekdaysOf(list: string): number[] | undefined {
  const words = list
    .toLowerCase()
    .split(/\s*(?:,|\band\b)\s*/)
    .map((word) => word.trim().replace(/s$/, ''))
    .filter((word) => word !== '');
  const days = words.map((word) => weekdayNumbers[word] ?? weekdayNumbers[`${word}s`]);
  if (days.some((day) => day === undefined)) return undefined;
  return [...new Set(days as number[])].sort((first, second) => first - second);
}

const units: ReadonlyArray<{ readonly pattern: RegExp; readonly kind: 'minute' | 'hour' | 'day' | 'week' }> =
  [
    { pattern: /^(?:m|min|mins|minute|minutes)$/i, kind: 'minute' },
    { pattern: /^(?:h|hr|hrs|hour|hours)$/i, kind: 'hour' },
    { pattern: /^(?:d|day|days)$/i, kind: 'day' },
    { pattern: /^(?:w|wk|wks|week|weeks)$/i, kind: 'week' },
  ];

/** Reads the "when" at the start of `text` at `nowMs` in `timeZone`. */
export function parseWhen({
  text,
  timeZone,
  nowMs,
}: {
  text: string;
  timeZone: string;
  nowMs: number;
}): WhenParse {
  const trimmed = text.trim();
  const readers = [readCron, readEvery, readIn, readDate, readDayAndTime];
  for (const read of readers) {
    const found = read(trimmed, timeZone, nowMs);
    if (found === undefined) continue;
    if ('problem' in found) return { isValid: false, problem: found.problem };
    return {
      isValid: true,
      timing: found.timing,
      whenText: trimmed.slice(0, found.length).trim(),
      rest: trimmed.slice(found.length).trim(),
    };
  }
  return { isValid: false, problem: `I could not read when. Start with a time such as ${whenExamples}` };
}

type Reading = { timing: ScheduleTiming; length: number } | { problem: string } | undefined;

function readCron(text: string, timeZone: string): Reading {
  const match = /^cron\s+((?:\S+\s+){4}\S+)(?=\s|$)/i.exec(text);
  if (!match?.[1]) return undefined;
  const pattern = match[1].replace(/\s+/g, ' ');
  try {
    cronIn(pattern, timeZone);
  } catch (error) {
    return { problem: `"${pattern}" is not a cron pattern croner accepts (${(error as Error).message})` };
  }
  return { timing: { kind: 'cron', pattern }, length: match[0].length };
}

function readEvery(text: string): Reading {
  if (!/^(?:every|daily|weekdays)\b/i.test(text)) return undefined;
  const interval = new RegExp(
    String.raw`^every\s+(?:(\d+)\s*)?(minutes?|mins?|hours?|hrs?|h|m)${end}`,
    'i',
  ).exec(text);
  if (interval) {
    const count = interval[1] === undefined ? 1 : Number.parseInt(interval[1], 10);
    const isHours = /^h/i.test(interval[2] ?? '');
    if (isHours) {
      if (count < 1 || count > 23 || 24 % count !== 0)
        return { problem: 'an interval in hours must divide the day: 1, 2, 3, 4, 6, 8 or 12' };
      return {
        timing: { kind: 'cron', pattern: `0 ${count === 1 ? '*' : `*/${count}`} * * *` },
        length: interval[0].length,
      };
    }
    if (count < 1 || count > 59 || 60 % count !== 0)
      return { problem: 'an interval in minutes must divide the hour: 5, 10, 15, 20, 30…' };
    return {
      timing: { kind: 'cron', pattern: `${count === 1 ? '*' : `*/${count}`} * * * *` },
      length: interval[0].length,
    };
  }
  const daily = new RegExp(String.raw`^(?:every\s+day|daily|every\s+morning)\s+${clock}${end}`, 'i').exec(
    text,
  );
  if (daily) return cronAt(daily, '*');
  const weekdays = new RegExp(String.raw`^(?:every\s+weekday|weekdays)\s+${clock}${end}`, 'i').exec(text);
  if (weekdays) return cronAt(weekdays, '1-5');
  const weekend = new RegExp(String.raw`^every\s+weekend(?:\s+day)?\s+${clock}${end}`, 'i').exec(text);
  if (weekend) return cronAt(weekend, '0,6');
  const weekly = new RegExp(
    String.raw`^every\s+(${weekdayWord}(?:\s*(?:,|and)\s*${weekdayWord})*)\s+${clock}${end}`,
    'i',
  ).exec(text);
  if (weekly?.[1]) {
    const days = weekdaysOf(weekly[1]);
    if (days === undefined) return { problem: `"${weekly[1]}" is not a list of weekdays` };
    const at = clockOf(weekly[2], weekly[3], weekly[4]);
    if (at === undefined) return { problem: 'say the time as 9:00, 17:30 or 9am' };
    return {
      timing: { kind: 'cron', pattern: `${at.minute} ${at.hour} * * ${days.join(',')}` },
      length: weekly[0].length,
    };
  }
  return { problem: `I could not read that repetition. Try ${whenExamples}` };
}

function cronAt(match: RegExpExecArray, weekdays: string): Reading {
  const at = clockOf(match[1], match[2], match[3]);
  if (at === undefined) return { problem: 'say the time as 9:00, 17:30 or 9am' };
  return {
    timing: { kind: 'cron', pattern: `${at.minute} ${at.hour} * * ${weekdays}` },
    length: match[0].length,
  };
}

function readIn(text: string, timeZone: string, nowMs: number): Reading {
  const match = /^in\s+((?:\d+\s*[a-z]+\s*)+?)(?=\s+[^\d\s]|\s*$)/i.exec(text);
  if (!match?.[1])
    return /^in\s+\d/i.test(text)
      ? { problem: 'say how long as "in 2h", "in 30 minutes" or "in 3 days"' }
      : undefined;
  let elapsedMs = 0;
  let days = 0;
  for (const [, amountText, unitText] of match[1].matchAll(/(\d+)\s*([a-z]+)/gi)) {
    const unit = units.find(({ pattern }) => pattern.test(unitText ?? ''));
    if (unit === undefined)
      return { problem: `"${unitText}" is not a unit: use minutes, hours, days or weeks` };
    const amount = Number.parseInt(amountText ?? '0', 10);
    if (unit.kind === 'minute') elapsedMs += amount * 60_000;
    else if (unit.kind === 'hour') elapsedMs += amount * 3_600_000;
    else days += amount * (unit.kind === 'week' ? 7 : 1);
  }
  // Minutes and hours are elapsed time; days and weeks are calendar days in the zone, so "in 1 day"
  // across a DST change is the same wall-clock time tomorrow, which TZDate works out.
  let atMs = nowMs + elapsedMs;
  if (days > 0) {
    const { year, month, day } = calendarDayIn({ atMs, timeZone, days });
    const local = new TZDate(atMs, timeZone);
    atMs = instantOf({ year, month, day, hour: local.getHours(), minute: local.getMinutes(), timeZone });
  }
  if (atMs <= nowMs) return { problem: 'say a time in the future, such as "in 10 minutes"' };
  return { timing: { kind: 'once', atMs }, length: match[0].length };
}

function readDate(text: string, timeZone: string, nowMs: number): Reading {
  const match = new RegExp(String.raw`^(?:on\s+)?(\d{4})-(\d{2})-(\d{2})\s+${clock}${end}`, 'i').exec(text);
  if (!match) return undefined;
  const at = clockOf(match[4], match[5], match[6]);
  if (at === undefined) return { problem: 'say the time as 9:00, 17:30 or 9am' };
  const [year, month, day] = [match[1], match[2], match[3]].map((part) =>
    Number.parseInt(part ?? '', 10),
  ) as [number, number, number];
  // The first such minute on or after the date's start, found by croner so a time in a DST gap moves
  // past the gap the same way a repeating schedule does.
  const dayStart = instantOf({ year, month: month - 1, day, timeZone });
  const atMs = nextRunAfter({
    timing: { kind: 'cron', pattern: `${at.minute} ${at.hour} ${day} ${month} *` },
    timeZone,
    afterMs: dayStart - 1,
  });
  if (atMs === undefined || calendarDayIn({ atMs, timeZone }).day !== day)
    return { problem: `${match[1]}-${match[2]}-${match[3]} is not a date` };
  if (atMs <= nowMs) return { problem: 'that time has passed; say one in the future' };
  return { timing: { kind: 'once', atMs }, length: match[0].length };
}

function readDayAndTime(text: string, timeZone: string, nowMs: number): Reading {
  const match = new RegExp(
    String.raw`^(?:(today|tomorrow|(?:on\s+)?(${weekdayWord}))\s+)?${clock}${end}`,
    'i',
  ).exec(text);
  if (!match) return undefined;
  const at = clockOf(match[3], match[4], match[5]);
  if (at === undefined) return undefined;
  const dayWord = match[1]?.toLowerCase();
  const weekday = match[2] === undefined ? undefined : weekdaysOf(match[2])?.[0];
  let afterMs = nowMs;
  let weekdays = '*';
  if (dayWord === 'tomorrow') {
    const { year, month, day } = calendarDayIn({ atMs: nowMs, timeZone, days: 1 });
    afterMs = instantOf({ year, month, day, timeZone }) - 1;
  } else if (weekday !== undefined) {
    weekdays = String(weekday);
  }
  const atMs = nextRunAfter({
    timing: { kind: 'cron', pattern: `${at.minute} ${at.hour} * * ${weekdays}` },
    timeZone,
    afterMs,
  });
  if (atMs === undefined) return { problem: 'I could not find that time' };
  if (
    dayWord === 'today' &&
    calendarDayIn({ atMs, timeZone }).day !== calendarDayIn({ atMs: nowMs, timeZone }).day
  )
    return { problem: 'that time has passed today; say "tomorrow" or another time' };
  return { timing: { kind: 'once', atMs }, length: match[0].length };
}
