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
  createBacking,
}: {
  name: string;
  isSkipped?: boolean;
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
