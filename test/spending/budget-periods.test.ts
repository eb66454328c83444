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
