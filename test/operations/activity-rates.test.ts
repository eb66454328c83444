import { describe, expect, it } from 'vitest';
import { createActivityWindow } from '../../src/operations/activity-rates.ts';
import { type ActivityTotals, activityTotals, recordRefusal } from '../../src/operations/metrics.ts';

describe('the overview’s activity rates', () => {
  it('are the change of the counters over the last five minutes, from the oldest sample inside them', async () => {
    let nowMs = 0;
    let totals: ActivityTotals = { replies: 100, failedReplies: 10, refusals: 5 };
    const window = createActivityWindow({ readTotals: async () => totals, nowMs: () => nowMs });
    // Nothing yet since the first sample.
    expect(await window.rates()).toMatchObject({
      repliesPerMinute: 0,
      errorRate: undefined,
      refusalRate: undefined,
    });

    nowMs = 2 * 60_000;
    totals = { replies: 120, failedReplies: 12, refusals: 10 };
    expect(await window.rates()).toEqual({
      minutes: 2,
      repliesPerMinute: 10,
      errorRate: 0.1,
      refusalRate: 0.2,
    });

    // Seven minutes in: the window starts at minute 2, whose sample is the baseline.
    nowMs = 7 * 60_000;
    totals = { replies: 170, failedReplies: 12, refusals: 10 };
    expect(await window.rates()).toEqual({ minutes: 5, repliesPerMinute: 10, errorRate: 0, refusalRate: 0 });
  });

  it('reads the refusals and replies the process counts for GET /metrics', async () => {
    const before = await activityTotals();
    recordRefusal({ kind: 'access' });
    recordRefusal({ kind: 'budget' });
    expect((await activityTotals()).refusals - before.refusals).toBe(2);
  });
});
