import { describe, expect, it } from 'vitest';
import type { KeyedLock } from '../../src/state/keyed-lock.ts';

/** Resolves once `condition` holds, checking every few milliseconds, or fails after `timeoutMs`. */
export async function waitUntil(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export interface LockBacking {
  /** A lock as one process sees it; two calls on a shared backing are two processes. */
  open(): KeyedLock;
  /** A key no other test uses. */
  uniqueKey(): string;
  dispose(): Promise<void>;
}

/** What every KeyedLock promises, run against each implementation. */
export function describeKeyedLockContract({
  name,
  isSkipped = false,
  hasPlaces = false,
  createBacking,
}: {
  name: string;
  isSkipped?: boolean;
  /** Whether the lock takes turns' places on arrival (`reserve`). */
  hasPlaces?: boolean;
  createBacking: () => Promise<LockBacking>;
}): void {
  describe.skipIf(isSkipped)(`KeyedLock contract: ${name}`, () => {
    const withBacking = async (body: (backing: LockBacking) => Promise<void>) => {
      const backing = await createBacking();
      try {
        await body(backing);
      } finally {
        await backing.dispose();
      }
    };

    it('runs tasks of one key one at a time, in the order they arrived', () =>
      withBacking(async (backing) => {
        const lock = backing.open();
        const key = backing.uniqueKey();
        const events: string[] = [];
        const gates = [0, 1, 2].map(() => Promise.withResolvers<void>());
        const runs = gates.map((gate, index) =>
          lock.run(key, async () => {
            events.push(`start ${index}`);
            await gate.promise;
            events.push(`end ${index}`);
            return index;
          }),
        );
        await waitUntil(() => events.length === 1);
        expect(lock.pendingCount(key)).toBe(3);
        gates[2]?.resolve();
        gates[1]?.resolve();
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(events).toEqual(['start 0']);
        gates[0]?.resolve();
        expect(await Promise.all(runs)).toEqual([0, 1, 2]);
        expect(events).toEqual(['start 0', 'end 0', 'start 1', 'end 1', 'start 2', 'end 2']);
        expect(lock.pendingCount(key)).toBe(0);
      }));

    it.skipIf(!hasPlaces)(
      'a turn whose place was taken on arrival runs before turns sent after it that reached the lock first',
      () =>
        withBacking(async (backing) => {
          const lock = backing.open();
          const key = backing.uniqueKey();
          const sentAtMicros = Date.now() * 1000;
          const events: string[] = [];
          // The first message arrives, takes its place, then its look-ups take a while.
          const firstPlace = lock.reserve?.(key, sentAtMicros);
          const later = [1, 2].map((offset) =>
            lock.run(key, async () => void events.push(`turn ${offset}`), {
              orderMicros: sentAtMicros + offset,
            }),
          );
          await new Promise((resolve) => setTimeout(resolve, 100));
          expect(events).toEqual([]);
          const first = lock.run(key, async () => void events.push('turn 0'), { orderMicros: sentAtMicros });
          await Promise.all([first, ...later]);
          firstPlace?.release();
          expect(events).toEqual(['turn 0', 'turn 1', 'turn 2']);
        }),
    );

    it.skipIf(!hasPlaces)('a place given up lets the turns after it go', () =>
      withBacking(async (backing) => {
        const lock = backing.open();
        const key = backing.uniqueKey();
        const sentAtMicros = Date.now() * 1000;
        const place = lock.reserve?.(key, sentAtMicros);
        const events: string[] = [];
        const later = lock.run(key, async () => void events.push('later'), { orderMicros: sentAtMicros + 1 });
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(events).toEqual([]);
        // A reservation is not a reply in progress: a thread's "is the bot busy here" must not see it.
        expect(lock.pendingCount(key)).toBe(1);
        place?.release();
        await later;
        expect(events).toEqual(['later']);
        expect(lock.pendingCount(key)).toBe(0);
      }),
    );

    it('runs tasks of different keys at the same time', () =>
      withBacking(async (backing) => {
        const lock = backing.open();
        const gate = Promise.withResolvers<void>();
        const first = lock.run(backing.uniqueKey(), () => gate.promise.then(() => 'a'));
        // If the second key waited for the first, this would time out.
        expect(await lock.run(backing.uniqueKey(), async () => 'b')).toBe('b');
        gate.resolve();
        expect(await first).toBe('a');
      }));

    it('releases the key when a task throws, and rejects with its error', () =>
      withBacking(async (backing) => {
        const lock = backing.open();
        const key = backing.uniqueKey();
        const failing = lock.run(key, async () => {
          throw new Error('task failed');
        });
        const next = lock.run(key, async () => 'next');
        await expect(failing).rejects.toThrow('task failed');
        expect(await next).toBe('next');
      }));
  });
}
