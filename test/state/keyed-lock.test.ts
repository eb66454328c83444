import { describe, expect, it } from 'vitest';
import { createInProcessLock } from '../../src/state/keyed-lock.ts';

/** Lets every already-queued promise callback run, so "has not started" means "cannot start yet". */
async function settleMicrotasks(): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
}

describe('createInProcessLock', () => {
  it('runs tasks of one key one at a time, in the order they arrived', async () => {
    const lock = createInProcessLock();
    const events: string[] = [];
    const gates = [
      Promise.withResolvers<void>(),
      Promise.withResolvers<void>(),
      Promise.withResolvers<void>(),
    ];
    const runs = gates.map((gate, index) =>
      lock.run('discord:guild:channel', async () => {
        events.push(`start ${index}`);
        await gate.promise;
        events.push(`end ${index}`);
        return index;
      }),
    );

    await settleMicrotasks();
    expect(events).toEqual(['start 0']);
    expect(lock.pendingCount('discord:guild:channel')).toBe(3);

    // Releasing a later task first must not let it overtake the one still running.
    gates[2]?.resolve();
    gates[1]?.resolve();
    await settleMicrotasks();
    expect(events).toEqual(['start 0']);

    gates[0]?.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2]);
    expect(events).toEqual(['start 0', 'end 0', 'start 1', 'end 1', 'start 2', 'end 2']);
  });

  it('runs tasks of different keys at the same time', async () => {
    const lock = createInProcessLock();
    const firstGate = Promise.withResolvers<void>();
    const secondStarted = Promise.withResolvers<void>();

    const first = lock.run('channel-a', async () => {
      await firstGate.promise;
      return 'a';
    });
    const second = lock.run('channel-b', async () => {
      secondStarted.resolve();
      return 'b';
    });

    // If channel-b waited for channel-a, this would never settle and the test would time out.
    await secondStarted.promise;
    expect(await second).toBe('b');
    expect(lock.pendingCount('channel-a')).toBe(1);
    firstGate.resolve();
    expect(await first).toBe('a');
  });

  it('hands a failure to its own caller and still runs the next task', async () => {
    const lock = createInProcessLock();
    const failing = lock.run('key', async () => {
      throw new Error('model unavailable');
    });
    const throwingSynchronously = lock.run('key', () => {
      throw new Error('thrown before any await');
    });
    const next = lock.run('key', async () => 'answered');

    await expect(failing).rejects.toThrow('model unavailable');
    await expect(throwingSynchronously).rejects.toThrow('thrown before any await');
    expect(await next).toBe('answered');
  });

  it('forgets a key once its queue is empty, so a million conversations cost nothing afterwards', async () => {
    const lock = createInProcessLock();
    const keyCount = 10_000;
    const runs = Array.from({ length: keyCount }, (_, index) =>
      lock.run(`conversation-${index}`, async () => index),
    );
    expect(lock.activeKeyCount).toBe(keyCount);

    await Promise.all(runs);
    await settleMicrotasks();

    expect(lock.activeKeyCount).toBe(0);
    expect(lock.pendingCount('conversation-0')).toBe(0);
  });

  it('counts waiting tasks down as they finish and starts afresh after a key was forgotten', async () => {
    const lock = createInProcessLock();
    const gate = Promise.withResolvers<void>();
    const running = lock.run('key', () => gate.promise);
    const waiting = lock.run('key', async () => undefined);
    expect(lock.pendingCount('key')).toBe(2);

    gate.resolve();
    await running;
    await waiting;
    await settleMicrotasks();
    expect(lock.pendingCount('key')).toBe(0);
    expect(lock.activeKeyCount).toBe(0);

    expect(await lock.run('key', async () => 'again')).toBe('again');
  });
});
