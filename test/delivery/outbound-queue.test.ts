import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type CallPriority, createOutboundQueue } from '../../src/delivery/outbound-queue.ts';
import {
  type Acquisition,
  type BucketClaim,
  createQuietGate,
  createSlidingWindow,
  createTokenBucket,
  type RateLimit,
} from '../../src/delivery/rate-limits.ts';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A call's target in these tests: the bucket keys it draws on, under one limit each. */
interface TestTarget {
  readonly channel?: string;
}

function slidingQueue({
  perWindow,
  windowMs,
  perChannel,
}: {
  perWindow: number;
  windowMs: number;
  perChannel?: number;
}) {
  const bot = createSlidingWindow({ limit: perWindow, windowMs });
  const channel = createSlidingWindow({ limit: perChannel ?? perWindow, windowMs });
  return createOutboundQueue<TestTarget>({
    bucketsFor: (target): BucketClaim[] => [
      { limit: bot, key: 'bot' },
      ...(target.channel === undefined ? [] : [{ limit: channel, key: target.channel }]),
    ],
  });
}

function recorder() {
  const started: Array<{ label: string; atMs: number }> = [];
  const call = (label: string, priority: CallPriority, staleSinceMs?: number, channel?: string) => ({
    priority,
    target: channel === undefined ? {} : { channel },
    ...(staleSinceMs === undefined ? {} : { staleSinceMs }),
    run: async () => {
      started.push({ label, atMs: Date.now() });
      return label;
    },
  });
  return { started, call };
}

describe('outbound queue over sliding windows (Discord)', () => {
  it('never starts more than the budget in any window', async () => {
    const queue = slidingQueue({ perWindow: 5, windowMs: 1_000 });
    const { started, call } = recorder();
    const all = Array.from({ length: 12 }, (_, index) => queue.schedule(call(`r${index}`, 'first-post')));
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

  it('keeps the last slot of a window for calls that do not ask to leave it free', async () => {
    const window = createSlidingWindow({ limit: 5, windowMs: 5_000 });
    const inBetween = window.keepingSpare(1);
    const queue = createOutboundQueue<{ readonly isInBetween: boolean }>({
      bucketsFor: (target): BucketClaim[] => [
        { limit: target.isInBetween ? inBetween : window, key: 'channel' },
      ],
    });
    const { started } = recorder();
    const call = (label: string, isInBetween: boolean) =>
      queue.schedule({
        priority: isInBetween ? 'edit' : 'final-write',
        target: { isInBetween },
        run: async () => {
          started.push({ label, atMs: Date.now() });
        },
      });
    const edits = Array.from({ length: 5 }, (_, index) => call(`edit ${index}`, true));
    await vi.advanceTimersByTimeAsync(100);
    expect(window.spareRoomAtMs('channel', Date.now(), 1)).toBe(Date.now() - 100 + 5_000);
    const final = call('final', false);
    await vi.advanceTimersByTimeAsync(0);
    await final;
    expect(started.map((entry) => entry.label)).toEqual(['edit 0', 'edit 1', 'edit 2', 'edit 3', 'final']);
    await vi.advanceTimersByTimeAsync(5_000);
    await Promise.all(edits);
    expect(started.at(-1)?.label).toBe('edit 4');
  });

  it('serves first posts, then final writes, then in-between edits, then cosmetic calls', async () => {
    const queue = slidingQueue({ perWindow: 1, windowMs: 1_000 });
    const { started, call } = recorder();
    const first = queue.schedule(call('busy', 'first-post'));
    const queued = [
      queue.schedule(call('edit', 'edit', 0)),
      queue.schedule(call('final', 'final-write')),
      queue.schedule(call('typing', 'cosmetic')),
      queue.schedule(call('post', 'first-post')),
    ];
    await vi.advanceTimersByTimeAsync(5_000);
    await Promise.all([first, ...queued]);
    expect(started.map((entry) => entry.label)).toEqual(['busy', 'post', 'final', 'edit', 'typing']);
  });

  it('shares in-between edits by staleness: the message that waited longest goes first', async () => {
    const queue = slidingQueue({ perWindow: 1, windowMs: 100 });
    const { started, call } = recorder();
    const blocker = queue.schedule(call('blocker', 'first-post'));
    const edits = [
      queue.schedule(call('fresh', 'edit', 900)),
      queue.schedule(call('stalest', 'edit', 100)),
      queue.schedule(call('middle', 'edit', 500)),
    ];
    await vi.advanceTimersByTimeAsync(1_000);
    await Promise.all([blocker, ...edits]);
    expect(started.map((entry) => entry.label)).toEqual(['blocker', 'stalest', 'middle', 'fresh']);
  });

  it('counts a bucket when a call is sent, and lets other buckets pass a full one', async () => {
    const queue = slidingQueue({ perWindow: 10, windowMs: 1_000, perChannel: 2 });
    const { started, call } = recorder();
    const calls = ['a1', 'a2', 'a3', 'a4', 'b1'].map((label) =>
      queue.schedule(call(label, 'edit', 0, label.slice(0, 1))),
    );
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

  it('grows a bucket to the size the platform says it has', async () => {
    const channel = createSlidingWindow({ limit: 1, windowMs: 1_000 });
    channel.learn('c1', { limit: 3, windowMs: 1_000 });
    const queue = createOutboundQueue<TestTarget>({ bucketsFor: () => [{ limit: channel, key: 'c1' }] });
    const { started, call } = recorder();
    const calls = ['x', 'y', 'z', 'w'].map((label) => queue.schedule(call(label, 'edit', 0)));
    await vi.advanceTimersByTimeAsync(2_000);
    await Promise.all(calls);
    expect(started.map((entry) => entry.atMs - (started[0]?.atMs ?? 0))).toEqual([0, 0, 0, 1_000]);
  });

  it('runs a cosmetic call only when nothing waits for its buckets and they have room', async () => {
    const queue = slidingQueue({ perWindow: 2, windowMs: 1_000 });
    const { call } = recorder();
    expect(await queue.tryNow({ target: {}, run: async () => 'typed' })).toEqual({ result: 'typed' });
    const calls = [queue.schedule(call('a', 'first-post')), queue.schedule(call('b', 'first-post'))];
    expect(queue.waitingCount()).toBe(1);
    expect(await queue.tryNow({ target: {}, run: async () => 'typed' })).toBeUndefined();
    await vi.advanceTimersByTimeAsync(2_100);
    await Promise.all(calls);
    expect(await queue.tryNow({ target: {}, run: async () => 'typed' })).toEqual({ result: 'typed' });
  });

  it('passes a failure through to the caller without stalling the queue', async () => {
    const queue = slidingQueue({ perWindow: 10, windowMs: 1_000 });
    const failing = queue.schedule({
      priority: 'first-post',
      target: {},
      run: async () => Promise.reject(new Error('refused')),
    });
    await expect(failing).rejects.toThrow('refused');
    await expect(queue.schedule({ priority: 'edit', target: {}, run: async () => 'ok' })).resolves.toBe('ok');
  });
});

describe('outbound queue over token buckets (Slack)', () => {
  const bucketQueue = (perMinute: number, burst: number) => {
    const limits = new Map<string, RateLimit>();
    return createOutboundQueue<{ teamId: string; method: string }>({
      bucketsFor: ({ teamId, method }) => {
        if (method === 'unlimited') return [];
        const limit = limits.get(method) ?? createTokenBucket({ perMinute, burst });
        limits.set(method, limit);
        return [{ limit, key: teamId }];
      },
    });
  };

  it('lets a burst through, then spaces calls at the rate, per workspace and method', async () => {
    const queue = bucketQueue(60, 2);
    const startedAtMs: Array<[string, number]> = [];
    const call = (teamId: string, method = 'chat.update') =>
      queue.schedule({
        priority: 'edit',
        target: { teamId, method },
        run: async () => {
          startedAtMs.push([`${teamId} ${method}`, Date.now()]);
        },
      });
    const origin = Date.now();
    const calls = [call('T1'), call('T1'), call('T1'), call('T2'), call('T1', 'unlimited')];
    await vi.advanceTimersByTimeAsync(1_000);
    await Promise.all(calls);
    expect(startedAtMs.map(([key, atMs]) => [key, atMs - origin])).toEqual([
      ['T1 chat.update', 0],
      ['T1 chat.update', 0],
      ['T2 chat.update', 0],
      ['T1 unlimited', 0],
      ['T1 chat.update', 1_000],
    ]);
  });

  it('serves final writes first, then the message that has shown stale text longest', async () => {
    const queue = bucketQueue(60, 1);
    const order: string[] = [];
    const call = (name: string, priority: CallPriority, staleSinceMs?: number) =>
      queue.schedule({
        priority,
        target: { teamId: 'T1', method: 'chat.update' },
        ...(staleSinceMs === undefined ? {} : { staleSinceMs }),
        run: async () => {
          order.push(name);
        },
      });
    const calls = [
      call('first', 'edit'),
      call('fresh edit', 'edit', Date.now() - 100),
      call('stale edit', 'edit', Date.now() - 5_000),
      call('final', 'final-write'),
    ];
    await vi.advanceTimersByTimeAsync(3_000);
    await Promise.all(calls);
    expect(order).toEqual(['first', 'final', 'stale edit', 'fresh edit']);
  });

  it('runs a call only when the budget allows it now, and never makes it wait', async () => {
    const queue = bucketQueue(60, 2);
    const start = () =>
      queue.tryNow({ target: { teamId: 'T1', method: 'chat.startStream' }, run: async () => 'started' });
    expect([await start(), await start(), await start()]).toEqual([
      { result: 'started' },
      { result: 'started' },
      undefined,
    ]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await start()).toEqual({ result: 'started' });
  });
});

describe('the fair share', () => {
  it('spaces each writer by the number of writers sharing the rate', () => {
    const queue = createOutboundQueue<TestTarget>({ bucketsFor: () => [] });
    const interval = () => queue.fairIntervalMs({ group: 'C1', callsPerMinute: 60, minimumMs: 700 });
    expect(interval()).toBe(1_000);
    for (const writer of ['a', 'b', 'c']) queue.noteWriter('C1', writer);
    expect(interval()).toBe(3_000);
    queue.forgetWriter('C1', 'b');
    expect(interval()).toBe(2_000);
    vi.advanceTimersByTime(61_000);
    expect(interval()).toBe(1_000);
  });
});

describe('a limit that answers asynchronously (a budget shared through Redis)', () => {
  it('is awaited, and keeps the same order and window', async () => {
    const local = createSlidingWindow({ limit: 2, windowMs: 1_000 });
    const remote: RateLimit = {
      tryAcquire: (key, nowMs) =>
        new Promise<Acquisition>((resolve) => setTimeout(() => resolve(local.tryAcquire(key, nowMs)), 5)),
    };
    const queue = createOutboundQueue<TestTarget>({ bucketsFor: () => [{ limit: remote, key: 'bot' }] });
    const { started, call } = recorder();
    const calls = [
      queue.schedule(call('edit', 'edit', 0)),
      queue.schedule(call('post', 'first-post')),
      queue.schedule(call('final', 'final-write')),
      queue.schedule(call('second post', 'first-post')),
    ];
    await vi.advanceTimersByTimeAsync(3_000);
    await Promise.all(calls);
    expect(started.map((entry) => entry.label)).toEqual(['edit', 'post', 'second post', 'final']);
    const base = started[0]?.atMs ?? 0;
    expect(started.filter((entry) => entry.atMs - base < 1_000)).toHaveLength(2);
  });
});

describe('a limit that cannot answer (its store failed)', () => {
  it('holds the call and asks again, instead of stranding it, and gives back the other grants', async () => {
    let isBroken = true;
    const local = createSlidingWindow({ limit: 5, windowMs: 1_000 });
    const remote: RateLimit = {
      tryAcquire: async (key, nowMs) => {
        if (isBroken) throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
        return local.tryAcquire(key, nowMs);
      },
    };
    const own = createSlidingWindow({ limit: 1, windowMs: 60_000 });
    const queue = createOutboundQueue<TestTarget>({
      bucketsFor: () => [
        { limit: own, key: 'bot' },
        { limit: remote, key: 'bot' },
      ],
    });
    const { started, call } = recorder();
    const posted = queue.schedule(call('post', 'first-post'));
    await vi.advanceTimersByTimeAsync(1_500);
    expect(started).toEqual([]);
    expect(queue.waitingCount()).toBe(1);
    // The process's own slot was given back each time: with a limit of one a minute, it is still free.
    isBroken = false;
    await vi.advanceTimersByTimeAsync(1_000);
    await expect(posted).resolves.toBe('post');
    expect(queue.waitingCount()).toBe(0);
    // A call a reply can do without is simply not made while the limit cannot answer.
    isBroken = true;
    await expect(queue.tryNow({ target: {}, run: async () => 'typing' })).resolves.toBeUndefined();
  });
});

describe('a quiet gate (typing on Discord)', () => {
  it('lets a courtesy through only while the window is used below its share', async () => {
    const bot = createSlidingWindow({ limit: 8, windowMs: 1_000 });
    const gate = createQuietGate({ window: bot, key: 'bot', limit: 8, fraction: 0.25 });
    const queue = createOutboundQueue<{ isTyping?: boolean }>({
      bucketsFor: (target) => [
        ...(target.isTyping ? [{ limit: gate, key: 'bot' }] : []),
        { limit: bot, key: 'bot' },
      ],
    });
    const type = () => queue.tryNow({ target: { isTyping: true }, run: async () => 'typed' });
    expect(await type()).toEqual({ result: 'typed' });
    expect(await type()).toEqual({ result: 'typed' });
    // Two of eight slots are used: a quarter. Typing waits until the window has emptied.
    expect(await type()).toBeUndefined();
    await queue.schedule({ priority: 'first-post', target: {}, run: async () => 'posted' });
    expect(bot.usedAt('bot', Date.now())).toBe(3);
    await vi.advanceTimersByTimeAsync(1_100);
    expect(await type()).toEqual({ result: 'typed' });
  });
});
