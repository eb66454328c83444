import { describe, expect, it } from 'vitest';
import { nextRunAfter } from '../../src/scheduling/schedule-timing.ts';
import { parseWhen } from '../../src/scheduling/when-phrase.ts';

const berlin = 'Europe/Berlin';
const newYork = 'America/New_York';

function read(text: string, nowIso: string, timeZone = berlin) {
  const parsed = parseWhen({ text, timeZone, nowMs: Date.parse(nowIso) });
  if (!parsed.isValid) throw new Error(parsed.problem);
  return parsed;
}

function onceAt(text: string, nowIso: string, timeZone = berlin): string {
  const { timing } = read(text, nowIso, timeZone);
  if (timing.kind !== 'once') throw new Error(`expected once, got ${timing.pattern}`);
  return new Date(timing.atMs).toISOString();
}

/** The next `count` runs of a repeating phrase as instants. */
function runsOf(text: string, nowIso: string, count: number, timeZone = berlin): string[] {
  const { timing } = read(text, nowIso, timeZone);
  const runs: string[] = [];
  let afterMs = Date.parse(nowIso);
  for (let index = 0; index < count; index += 1) {
    const next = nextRunAfter({ timing, timeZone, afterMs });
    if (next === undefined) break;
    runs.push(new Date(next).toISOString());
    afterMs = next;
  }
  return runs;
}

describe('the when grammar', () => {
  it('splits the when from what follows', () => {
    const parsed = read(
      'every weekday 09:00 /summarize --messages 200 focus on decisions',
      '2025-06-02T06:00:00Z',
    );
    expect(parsed).toMatchObject({
      timing: { kind: 'cron', pattern: '0 9 * * 1-5' },
      whenText: 'every weekday 09:00',
      rest: '/summarize --messages 200 focus on decisions',
    });
    expect(read('in 2h call mom', '2025-06-02T06:00:00Z').rest).toBe('call mom');
    expect(
      read('every Friday 17:00 what changed in #support this week?', '2025-06-02T06:00:00Z'),
    ).toMatchObject({
      timing: { pattern: '0 17 * * 5' },
      rest: 'what changed in #support this week?',
    });
  });

  it('reads durations as elapsed time and days as calendar days', () => {
    expect(onceAt('in 2h x', '2025-06-02T06:00:00Z')).toBe('2025-06-02T08:00:00.000Z');
    expect(onceAt('in 90 minutes x', '2025-06-02T06:00:00Z')).toBe('2025-06-02T07:30:00.000Z');
    expect(onceAt('in 1h 30m x', '2025-06-02T06:00:00Z')).toBe('2025-06-02T07:30:00.000Z');
    expect(onceAt('in 2 weeks x', '2025-06-02T06:00:00Z')).toBe('2025-06-16T06:00:00.000Z');
  });

  it('reads clock times, today, tomorrow and weekdays in the zone', () => {
    // 08:00 in Berlin (CEST, UTC+2) on Monday 2 June 2025.
    const now = '2025-06-02T06:00:00Z';
    expect(onceAt('tomorrow 9:00 x', now)).toBe('2025-06-03T07:00:00.000Z');
    expect(onceAt('tomorrow at 9am x', now)).toBe('2025-06-03T07:00:00.000Z');
    expect(onceAt('9:30 x', now)).toBe('2025-06-02T07:30:00.000Z');
    expect(onceAt('at 7:30 x', now)).toBe('2025-06-03T05:30:00.000Z');
    expect(onceAt('today 5:30 pm x', now)).toBe('2025-06-02T15:30:00.000Z');
    expect(onceAt('on friday at 17:00 x', now)).toBe('2025-06-06T15:00:00.000Z');
    expect(onceAt('2025-12-24 18:00 x', now)).toBe('2025-12-24T17:00:00.000Z');
    expect(onceAt('tomorrow 9:00 x', now, newYork)).toBe('2025-06-03T13:00:00.000Z');
  });

  it('reads repetitions as cron patterns', () => {
    const now = '2025-06-02T06:00:00Z';
    expect(read('every Monday 10:00 x', now).timing).toEqual({ kind: 'cron', pattern: '0 10 * * 1' });
    expect(read('every mon, wed and fri at 9am x', now).timing).toEqual({
      kind: 'cron',
      pattern: '0 9 * * 1,3,5',
    });
    expect(read('daily at 8:15 x', now).timing).toEqual({ kind: 'cron', pattern: '15 8 * * *' });
    expect(read('every weekend 10:00 x', now).timing).toEqual({ kind: 'cron', pattern: '0 10 * * 0,6' });
    expect(read('every 15 minutes x', now).timing).toEqual({ kind: 'cron', pattern: '*/15 * * * *' });
    expect(read('every hour x', now).timing).toEqual({ kind: 'cron', pattern: '0 * * * *' });
    expect(read('every 6 hours x', now).timing).toEqual({ kind: 'cron', pattern: '0 */6 * * *' });
    expect(read('cron 0 9 * * 1-5 x', now).timing).toEqual({ kind: 'cron', pattern: '0 9 * * 1-5' });
    expect(runsOf('every weekday 09:00 x', '2025-06-06T08:00:00Z', 2)).toEqual([
      '2025-06-09T07:00:00.000Z',
      '2025-06-10T07:00:00.000Z',
    ]);
  });

  it('says what is wrong instead of guessing', () => {
    const problemOf = (text: string) => {
      const parsed = parseWhen({ text, timeZone: berlin, nowMs: Date.parse('2025-06-02T06:00:00Z') });
      return parsed.isValid ? undefined : parsed.problem;
    };
    expect(problemOf('soon-ish call mom')).toMatch(/could not read when/);
    expect(problemOf('every 7 minutes x')).toMatch(/divide the hour/);
    expect(problemOf('cron 99 9 * * * x')).toMatch(/not a cron pattern/);
    expect(problemOf('every blursday 9:00 x')).toMatch(/repetition/);
    expect(problemOf('2025-02-30 09:00 x')).toMatch(/not a date/);
    expect(problemOf('2024-01-01 09:00 x')).toMatch(/passed/);
    expect(problemOf('today 7:00 x')).toMatch(/passed today/);
    expect(problemOf('25:00 x')).toMatch(/could not read when/);
  });
});

describe('DST', () => {
  it('a daily 09:00 stays at 09:00 local across spring forward and fall back', () => {
    // Berlin: clocks go 02:00 → 03:00 on 30 March 2025 and 03:00 → 02:00 on 26 October 2025.
    expect(runsOf('every day 9:00 x', '2025-03-29T00:00:00Z', 3)).toEqual([
      '2025-03-29T08:00:00.000Z',
      '2025-03-30T07:00:00.000Z',
      '2025-03-31T07:00:00.000Z',
    ]);
    expect(runsOf('every day 9:00 x', '2025-10-25T00:00:00Z', 3)).toEqual([
      '2025-10-25T07:00:00.000Z',
      '2025-10-26T08:00:00.000Z',
      '2025-10-27T08:00:00.000Z',
    ]);
  });

  it('a time in the spring gap runs at the end of the gap; a repeated time runs once', () => {
    expect(runsOf('every day 2:30 x', '2025-03-29T00:00:00Z', 3)).toEqual([
      '2025-03-29T01:30:00.000Z',
      // 02:30 does not exist on the 30th: the run comes at 03:00 CEST.
      '2025-03-30T01:00:00.000Z',
      '2025-03-31T00:30:00.000Z',
    ]);
    expect(runsOf('every day 2:30 x', '2025-10-25T00:00:00Z', 3)).toEqual([
      '2025-10-25T00:30:00.000Z',
      // 02:30 happens twice on the 26th (CEST, then CET): one run, the first.
      '2025-10-26T00:30:00.000Z',
      '2025-10-27T01:30:00.000Z',
    ]);
    expect(onceAt('2025-03-30 02:30 x', '2025-03-01T00:00:00Z')).toBe('2025-03-30T01:00:00.000Z');
  });

  it('"in 1 day" keeps the wall-clock time across a change; "in 24h" keeps the elapsed time', () => {
    // 12:00 CET on 29 March; the next day 12:00 is CEST.
    expect(onceAt('in 1 day x', '2025-03-29T11:00:00Z')).toBe('2025-03-30T10:00:00.000Z');
    expect(onceAt('in 24h x', '2025-03-29T11:00:00Z')).toBe('2025-03-30T11:00:00.000Z');
    expect(onceAt('tomorrow 12:00 x', '2025-03-29T11:00:00Z')).toBe('2025-03-30T10:00:00.000Z');
  });

  it('New York changes on its own dates', () => {
    // 9 March 2025: 02:00 → 03:00 in New York; Berlin still on CET.
    expect(runsOf('every day 9:00 x', '2025-03-08T00:00:00Z', 2, newYork)).toEqual([
      '2025-03-08T14:00:00.000Z',
      '2025-03-09T13:00:00.000Z',
    ]);
  });
});
