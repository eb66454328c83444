import { afterEach, describe, expect, it, vi } from 'vitest';
import { createInProcessLock } from '../../src/state/keyed-lock.ts';
import { createOrderedLock } from '../../src/state/ordered-lock.ts';

afterEach(() => {
  vi.useRealTimers();
});

describe('createOrderedLock', () => {
  it('answers a burst in the order it was sent, whichever turn reaches the lock first', async () => {
    const lock = createOrderedLock({ lock: createInProcessLock() });
    const key = 'discord:guild:channel';
    const sentAt = Array.from({ length: 20 }, (_, index) => 1_700_000_000_000_000 + index);
    const places = sentAt.map((orderMicros) => lock.reserve?.(key, orderMicros));
    const answered: number[] = [];
    // The look-ups before the lock finish in the reverse order: the last message first.
    const runs = [...sentAt]
      .reverse()
      .map((orderMicros) =>
        lock.run(key, async () => void answered.push(sentAt.indexOf(orderMicros)), { orderMicros }),
      );
    await Promise.all(runs);
    for (const place of places) place?.release();
    expect(answered).toEqual(sentAt.map((_, index) => index));
  });

  it('gives up a place whose turn never came after maxReservationMs, and says so', async () => {
    vi.useFakeTimers();
    const givenUp: string[] = [];
    const lock = createOrderedLock({
      lock: createInProcessLock(),
      maxReservationMs: 5_000,
      onPlaceGivenUp: (key) => givenUp.push(key),
    });
    lock.reserve?.('k', 1);
    let hasRun = false;
    const later = lock.run(
      'k',
      async () => {
        hasRun = true;
      },
      { orderMicros: 2 },
    );
    await vi.advanceTimersByTimeAsync(4_999);
    expect(hasRun).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await later;
    expect(hasRun).toBe(true);
    expect(givenUp).toEqual(['k']);
  });

  it('lets a task without an order in at once when no place is held before it', async () => {
    const lock = createOrderedLock({ lock: createInProcessLock() });
    await expect(lock.run('k', async () => 'done')).resolves.toBe('done');
    expect(lock.pendingCount('k')).toBe(0);
  });
});
