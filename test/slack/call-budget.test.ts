import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createCallBudget } from '../../adapters/slack/call-budget.ts';

describe('slack call budget', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('lets a burst through, then spaces calls at the rate, per workspace and method', async () => {
    const budget = createCallBudget({
      budgets: { 'chat.update': { perMinute: 60, burst: 2 } },
      now: () => Date.now(),
    });
    const startedAtMs: Array<[string, number]> = [];
    const call = (teamId: string, method = 'chat.update') =>
      budget.run({
        teamId,
        method,
        priority: 'edit',
        call: async () => {
          startedAtMs.push([`${teamId} ${method}`, Date.now()]);
        },
      });
    const origin = Date.now();

    const calls = [call('T1'), call('T1'), call('T1'), call('T2'), call('T1', 'chat.postMessage')];
    await vi.advanceTimersByTimeAsync(1_000);
    await Promise.all(calls);

    expect(startedAtMs.map(([key, atMs]) => [key, atMs - origin])).toEqual([
      ['T1 chat.update', 0],
      ['T1 chat.update', 0],
      ['T2 chat.update', 0],
      ['T1 chat.postMessage', 0],
      ['T1 chat.update', 1_000],
    ]);
  });

  it('serves final edits first, then the message that has shown stale text longest', async () => {
    const budget = createCallBudget({
      budgets: { 'chat.update': { perMinute: 60, burst: 1 } },
      now: () => Date.now(),
    });
    const order: string[] = [];
    const call = (name: string, priority: 'edit' | 'final-edit', staleSinceMs?: number) =>
      budget.run({
        teamId: 'T1',
        method: 'chat.update',
        priority,
        ...(staleSinceMs === undefined ? {} : { staleSinceMs }),
        call: async () => {
          order.push(name);
        },
      });

    const calls = [
      call('first', 'edit'),
      call('fresh edit', 'edit', Date.now() - 100),
      call('stale edit', 'edit', Date.now() - 5_000),
      call('final', 'final-edit'),
    ];
    await vi.advanceTimersByTimeAsync(3_000);
    await Promise.all(calls);

    expect(order).toEqual(['first', 'final', 'stale edit', 'fresh edit']);
  });

  it('runs a call only when the budget allows it now, and never makes it wait', async () => {
    const budget = createCallBudget({
      budgets: { 'chat.startStream': { perMinute: 60, burst: 2 } },
      now: () => Date.now(),
    });
    const start = () =>
      budget.runIfFree({ teamId: 'T1', method: 'chat.startStream', call: async () => 'started' });

    expect([await start(), await start(), await start()]).toEqual([
      { result: 'started' },
      { result: 'started' },
      undefined,
    ]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await start()).toEqual({ result: 'started' });
    budget.reset();
    expect([await start(), await start()]).toEqual([{ result: 'started' }, { result: 'started' }]);
  });
});
