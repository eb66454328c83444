import { describe, expect, it } from 'vitest';
import { groupSpend } from '../../src/console/spend-history.ts';
import type { PlacePeriodSpend } from '../../src/conversation/usage-ledger.ts';

function day(label: string, costNanos: number, model: string): PlacePeriodSpend {
  return {
    label,
    costNanos,
    requests: 1,
    costByModel: { [model]: costNanos },
    toolCalls: { search: { calls: 1, errors: 0 } },
  };
}

describe('the Spend page’s grouping over time', () => {
  // 2026-11-01 is a Sunday; 2026-11-02 a Monday.
  const days = [day('2026-11-01', 10, 'a'), day('2026-11-02', 20, 'a'), day('2026-11-08', 30, 'b')];
  const months = [day('2026-10', 5, 'a'), day('2026-11', 60, 'b')];

  it('sums the days of each week, Monday to Sunday, model by model and tool by tool', () => {
    expect(groupSpend({ grouping: 'week', days, months })).toEqual([
      { ...day('2026-11-01', 10, 'a'), label: 'week of 2026-10-26', start: '2026-10-26' },
      {
        label: 'week of 2026-11-02',
        start: '2026-11-02',
        costNanos: 50,
        requests: 2,
        costByModel: { a: 20, b: 30 },
        toolCalls: { search: { calls: 2, errors: 0 } },
      },
    ]);
  });

  it('takes months from their own month tallies, and days as they are', () => {
    expect(
      groupSpend({ grouping: 'month', days, months }).map((month) => [month.start, month.costNanos]),
    ).toEqual([
      ['2026-10-01', 5],
      ['2026-11-01', 60],
    ]);
    expect(groupSpend({ grouping: 'day', days, months }).map((one) => one.start)).toEqual([
      '2026-11-01',
      '2026-11-02',
      '2026-11-08',
    ]);
  });
});
