import { afterEach, describe, expect, it, vi } from 'vitest';
import { createStoreTimeBound, StoreTimeoutError } from '../../src/state/time-bound-store.ts';

afterEach(() => {
  vi.useRealTimers();
});

const never = () => new Promise<never>(() => {});

describe('createStoreTimeBound', () => {
  it('after one call went unanswered, the next calls give up quickly: a turn hears within about one bound', async () => {
    vi.useFakeTimers();
    const timeBound = createStoreTimeBound({ timeoutMs: 2_000 });
    const first = expect(timeBound.bound('set', never)).rejects.toBeInstanceOf(StoreTimeoutError);
    await vi.advanceTimersByTimeAsync(2_000);
    await first;
    // The lock, the history and the budget after it: 250 ms each, not two seconds each.
    const startedAtMs = Date.now();
    for (const operation of ['eval', 'get', 'eval']) {
      const next = expect(timeBound.bound(operation, never)).rejects.toBeInstanceOf(StoreTimeoutError);
      await vi.advanceTimersByTimeAsync(250);
      await next;
    }
    expect(Date.now() - startedAtMs).toBe(750);
    // A store that answers again is used again at once, and gets the whole bound after that.
    await expect(timeBound.bound('get', async () => 'back')).resolves.toBe('back');
    const slow = timeBound.bound(
      'get',
      () => new Promise((resolve) => setTimeout(() => resolve('slow but there'), 1_000)),
    );
    await vi.advanceTimersByTimeAsync(1_000);
    await expect(slow).resolves.toBe('slow but there');
  });

  it('a slow store that misses the short bound is given the whole bound again one bound later', async () => {
    vi.useFakeTimers();
    const timeBound = createStoreTimeBound({ timeoutMs: 2_000 });
    const first = expect(timeBound.bound('get', never)).rejects.toBeInstanceOf(StoreTimeoutError);
    await vi.advanceTimersByTimeAsync(2_000);
    await first;
    const short = expect(timeBound.bound('get', never)).rejects.toBeInstanceOf(StoreTimeoutError);
    await vi.advanceTimersByTimeAsync(250);
    await short;
    await vi.advanceTimersByTimeAsync(1_750);
    const slow = timeBound.bound('get', () => new Promise((resolve) => setTimeout(() => resolve('ok'), 600)));
    await vi.advanceTimersByTimeAsync(600);
    await expect(slow).resolves.toBe('ok');
  });

  it('a call that settles without asking the server (the connected client) does not end the short bound', async () => {
    vi.useFakeTimers();
    const timeBound = createStoreTimeBound({ timeoutMs: 2_000 });
    const first = expect(timeBound.bound('get', never)).rejects.toBeInstanceOf(StoreTimeoutError);
    await vi.advanceTimersByTimeAsync(2_000);
    await first;
    await expect(timeBound.bound('connect', async () => 'client', { reachesServer: false })).resolves.toBe(
      'client',
    );
    const next = expect(timeBound.bound('eval', never)).rejects.toMatchObject({ timeoutMs: 250 });
    await vi.advanceTimersByTimeAsync(250);
    await next;
  });

  it('a call that fails for another reason does not shorten the next ones', async () => {
    const timeBound = createStoreTimeBound({ timeoutMs: 2_000 });
    await expect(timeBound.bound('get', () => Promise.reject(new Error('refused')))).rejects.toThrow(
      'refused',
    );
    await expect(timeBound.bound('get', async () => 'fine')).resolves.toBe('fine');
  });
});
