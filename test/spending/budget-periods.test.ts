import { describe, expect, it } from 'vitest';
import { describeReset, periodsAt } from '../../src/spending/budget-periods.ts';
import { formatCost, imageCostNanos, tokenCostNanos } from '../../src/spending/prices.ts';

describe('budget periods', () => {
  it('names the day and month in UTC, ending at the next midnight and the 1st', () => {
    const periods = periodsAt({ at: new Date('2026-11-30T23:30:00Z'), timeZone: 'UTC' });
    expect(periods.day).toEqual({ label: '2026-11-30', endsAt: new Date('2026-12-01T00:00:00Z') });
    expect(periods.month).toEqual({ label: '2026-11', endsAt: new Date('2026-12-01T00:00:00Z') });
  });

  it('follows the time zone, also on a day that is 23 hours long', () => {
    // 23:30 UTC on 28 March 2026 is already the 29th in Berlin, where clocks go forward that night.
    const periods = periodsAt({ at: new Date('2026-03-28T23:30:00Z'), timeZone: 'Europe/Berlin' });
    expect(periods.day.label).toBe('2026-03-29');
    expect(periods.day.endsAt).toEqual(new Date('2026-03-29T22:00:00Z'));
    expect(periods.month.endsAt).toEqual(new Date('2026-03-31T22:00:00Z'));
  });

  it('moves to the next day at local midnight, however often it was asked that day', () => {
    const timeZone = 'America/New_York';
    const at = (iso: string) => periodsAt({ at: new Date(iso), timeZone });
    // 23:59:59.999 on 14 July in New York (EDT, UTC-4), asked twice: the second answer is the kept one.
    for (const _ of [1, 2]) {
      expect(at('2026-07-15T03:59:59.999Z').day).toEqual({
        label: '2026-07-14',
        endsAt: new Date('2026-07-15T04:00:00Z'),
      });
    }
    expect(at('2026-07-15T04:00:00.000Z').day).toEqual({
      label: '2026-07-15',
      endsAt: new Date('2026-07-16T04:00:00Z'),
    });
    // A look back at the day before still names that day, and today is still today afterwards.
    expect(at('2026-07-14T12:00:00Z').day.label).toBe('2026-07-14');
    expect(at('2026-07-15T12:00:00Z').day.label).toBe('2026-07-15');
  });

  it('keeps a 23-hour and a 25-hour day to their own length where clocks change', () => {
    const timeZone = 'America/New_York';
    const at = (iso: string) => periodsAt({ at: new Date(iso), timeZone });
    // 8 March 2026: clocks go forward at 02:00, midnight to midnight is 23 hours.
    expect(at('2026-03-08T04:59:59.999Z').day).toEqual({
      label: '2026-03-07',
      endsAt: new Date('2026-03-08T05:00:00Z'),
    });
    expect(at('2026-03-08T05:00:00Z').day).toEqual({
      label: '2026-03-08',
      endsAt: new Date('2026-03-09T04:00:00Z'),
    });
    expect(at('2026-03-09T03:59:59.999Z').day.label).toBe('2026-03-08');
    expect(at('2026-03-09T04:00:00Z').day.label).toBe('2026-03-09');
    // 1 November 2026: clocks go back at 02:00, the day is 25 hours, and a new month starts with it.
    expect(at('2026-11-01T03:59:59.999Z')).toEqual({
      day: { label: '2026-10-31', endsAt: new Date('2026-11-01T04:00:00Z') },
      month: { label: '2026-10', endsAt: new Date('2026-11-01T04:00:00Z') },
    });
    expect(at('2026-11-01T04:00:00Z')).toEqual({
      day: { label: '2026-11-01', endsAt: new Date('2026-11-02T05:00:00Z') },
      month: { label: '2026-11', endsAt: new Date('2026-12-01T05:00:00Z') },
    });
    // 23:30 on 1 November is 04:30 UTC on the 2nd: still the 1st, 24 hours after its midnight.
    expect(at('2026-11-02T04:30:00Z').day.label).toBe('2026-11-01');
    expect(at('2026-11-02T05:00:00Z').day.label).toBe('2026-11-02');
  });

  it('keeps each time zone its own day', () => {
    const at = new Date('2026-07-15T02:00:00Z');
    expect(periodsAt({ at, timeZone: 'America/New_York' }).day.label).toBe('2026-07-14');
    expect(periodsAt({ at, timeZone: 'Europe/Berlin' }).day.label).toBe('2026-07-15');
    expect(periodsAt({ at, timeZone: 'America/New_York' }).day.label).toBe('2026-07-14');
  });

  it('says when a budget resets', () => {
    const at = new Date('2026-11-04T20:40:00Z');
    const { day, month } = periodsAt({ at, timeZone: 'UTC' });
    expect(describeReset({ period: 'day', window: day, now: at, timeZone: 'UTC' })).toBe(
      'resets at midnight UTC, in 3 h 20 min',
    );
    expect(describeReset({ period: 'month', window: month, now: at, timeZone: 'UTC' })).toBe(
      'resets on 1 December (UTC)',
    );
  });
});

describe('prices', () => {
  const price = {
    inputPerMillionTokens: 0.15,
    outputPerMillionTokens: 0.6,
    perImage: 0.042,
    perImageVariants: [{ aspectRatio: '16:9', perImage: 0.063 }],
  };

  it('costs tokens exactly, in billionths, however many small requests add up', () => {
    const one = tokenCostNanos({ price, promptTokens: 1, completionTokens: 1 });
    expect(one).toBe(750);
    expect(formatCost(one * 1_000_000)).toBe('0.75');
  });

  it('costs images by the first matching variant, else the base price', () => {
    expect(imageCostNanos({ price, count: 4, aspectRatio: '16:9' })).toBe(252_000_000);
    expect(imageCostNanos({ price, count: 2, aspectRatio: '1:1' })).toBe(84_000_000);
  });
});
