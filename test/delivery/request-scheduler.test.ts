import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createRequestScheduler, type RequestPriority } from '../../src/delivery/request-scheduler.ts';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function recorder() {
  const started: Array<{ label: string; atMs: number }> = [];
  const request = (label: string, priority: RequestPriority, staleSinceMs?: number) => ({
    priority,
    ...(staleSinceMs === undefined ? {} : { staleSinceMs }),
    run: async () => {
      started.push({ label, atMs: Date.now() });
      return label;
    },
  });
  return { started, request };
}

describe('request scheduler', () => {
  it('never starts more than the budget in any window', async () => {
    const scheduler = createRequestScheduler({ requestsPerWindow: 5, windowMs: 1_000 });
    const { started, request } = recorder();
    const all = Array.from({ length: 12 }, (_, index) => scheduler.schedule(request(`r${index}`, 'post')));
    await vi.advanceTimersByTimeAsync(3_000);
    await Promise.all(all);
    for (const { atMs } of started) {
      expect(
        started.filter((other) => other.atMs > atMs - 1_000 && other.atMs <= atMs).length,
      ).toBeLessThanOrEqual(5);
    }
    expect(started.map((entry) => entry.atMs - (started[0]?.atMs ?? 0))).toEqual([
      0, 0, 0, 0, 0, 1_000, 1_000, 1_000, 1_000, 1_000, 2_000, 2_000,
    ]);
  });

  it('serves posts, then final edits, then in-between edits, when the budget is short', async () => {
    const scheduler = createRequestScheduler({ requestsPerWindow: 1, windowMs: 1_000 });
    const { started, request } = recorder();
    const first = scheduler.schedule(request('busy', 'post'));
    const queued = [
      scheduler.schedule(request('edit', 'edit', 0)),
      scheduler.schedule(request('final', 'final-edit')),
      scheduler.schedule(request('typing', 'typing')),
      scheduler.schedule(request('post', 'post')),
    ];
    await vi.advanceTimersByTimeAsync(5_000);
    await Promise.all([first, ...queued]);
    expect(started.map((entry) => entry.label)).toEqual(['busy', 'post', 'final', 'edit', 'typing']);
  });

  it('shares in-between edits by staleness: the message that waited longest goes first', async () => {
    const scheduler = createRequestScheduler({ requestsPerWindow: 1, windowMs: 100 });
    const { started, request } = recorder();
    const blocker = scheduler.schedule(request('blocker', 'post'));
    const edits = [
      scheduler.schedule(request('fresh', 'edit', 900)),
      scheduler.schedule(request('stalest', 'edit', 100)),
      scheduler.schedule(request('middle', 'edit', 500)),
    ];
    await vi.advanceTimersByTimeAsync(1_000);
    await Promise.all([blocker, ...edits]);
    expect(started.map((entry) => entry.label)).toEqual(['blocker', 'stalest', 'middle', 'fresh']);
  });

  it('counts a bucket when a request is sent, and lets other buckets pass a full one', async () => {
    const scheduler = createRequestScheduler({ requestsPerWindow: 10, windowMs: 1_000 });
    const { started } = recorder();
    const inChannel = (label: string, channel: string) =>
      scheduler.schedule({
        priority: 'edit',
        bucket: { key: channel, limit: 2, windowMs: 1_000 },
        run: async () => {
          started.push({ label, atMs: Date.now() });
        },
      });
    const calls = [
      inChannel('a1', 'a'),
      inChannel('a2', 'a'),
      inChannel('a3', 'a'),
      inChannel('a4', 'a'),
      inChannel('b1', 'b'),
    ];
    await vi.advanceTimersByTimeAsync(3_000);
    await Promise.all(calls);
    const base = started[0]?.atMs ?? 0;
    expect(started.map((entry) => [entry.label, entry.atMs - base])).toEqual([
      ['a1', 0],
      ['a2', 0],
      ['b1', 0],
      ['a3', 1_000],
      ['a4', 1_000],
    ]);
  });

  it('is idle only when nothing waits and the window has room', async () => {
    const scheduler = createRequestScheduler({ requestsPerWindow: 2, windowMs: 1_000 });
    const { request } = recorder();
    expect(scheduler.isIdle()).toBe(true);
    const calls = [
      scheduler.schedule(request('a', 'post')),
      scheduler.schedule(request('b', 'post')),
      scheduler.schedule(request('c', 'post')),
    ];
    expect(scheduler.isIdle()).toBe(false);
    expect(scheduler.waitingCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(2_100);
    await Promise.all(calls);
    expect(scheduler.isIdle()).toBe(true);
  });

  it('passes a failure through to the caller without stalling the queue', async () => {
    const scheduler = createRequestScheduler({ requestsPerWindow: 10 });
    const failing = scheduler.schedule({
      priority: 'post',
      run: async () => Promise.reject(new Error('refused')),
    });
    await expect(failing).rejects.toThrow('refused');
    await expect(scheduler.schedule({ priority: 'edit', run: async () => 'ok' })).resolves.toBe('ok');
  });
});
