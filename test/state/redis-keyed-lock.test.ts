import { randomUUID } from 'node:crypto';
import { createClient } from '@redis/client';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Coordination, openCoordination } from '../../src/state/coordination.ts';
import { openStore, type Store } from '../../src/state/create-store.ts';
import { enqueueScript } from '../../src/state/redis-lock-scripts.ts';
import { waitUntil } from './keyed-lock-contract.ts';

const logger = pino({ level: 'silent' });
const redisUrl = process.env.REDIS_URL;
/** Stores opened by a test, each closed at the end of the file. */
const openedStores: Store[] = [];
const openTestStore = (storeUrl: string): Store => {
  const store = openStore({ storeUrl, logger: pino({ level: 'silent' }) });
  openedStores.push(store);
  return store;
};
afterAll(async () => {
  await Promise.all(openedStores.map((store) => store.close()));
});

describe.skipIf(redisUrl === undefined)(
  redisUrl === undefined
    ? 'Redis lock across processes (skipped: REDIS_URL is not set; run with REDIS_URL=redis://127.0.0.1:6379)'
    : 'Redis lock across processes',
  () => {
    const namespace = `parley-test-lock-${randomUUID()}`;
    const prefix = `parley:${namespace}:conversation`;
    const opened: Coordination[] = [];
    const redis = createClient({ url: redisUrl ?? '' });
    /** One bot process's view of the lock. */
    const openProcess = (lockTtlMs = 1_500) => {
      const coordination = openCoordination({
        store: openTestStore(redisUrl ?? ''),
        logger,
        lockTtlMs,
        namespace,
      });
      opened.push(coordination);
      return coordination.conversationLock;
    };

    beforeAll(async () => {
      await redis.connect();
    });
    afterAll(async () => {
      await Promise.all(opened.map((coordination) => coordination.close()));
      for (const key of await redis.keys(`parley:${namespace}:*`)) await redis.del(key);
      redis.destroy();
    });

    it('keeps arrival order across processes: a later task of the first process waits behind the second', async () => {
      const first = openProcess();
      const second = openProcess();
      const key = `slack:T1:${randomUUID()}`;
      const events: string[] = [];
      const gate = Promise.withResolvers<void>();
      const running = first.run(key, async () => {
        events.push('first process, turn 1');
        await gate.promise;
      });
      await waitUntil(() => events.length === 1);
      const fromSecond = second.run(key, async () => {
        events.push('second process, turn 2');
      });
      // The second process's waiter is queued in Redis before the first process's next turn arrives.
      await waitUntil(() => second.pendingCount(key) === 2);
      const laterFromFirst = first.run(key, async () => {
        events.push('first process, turn 3');
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      // The first process counts its own two tasks and the other process's waiter ahead of its second.
      expect(first.pendingCount(key)).toBe(3);
      gate.resolve();
      await Promise.all([running, fromSecond, laterFromFirst]);
      expect(events).toEqual(['first process, turn 1', 'second process, turn 2', 'first process, turn 3']);
    });

    it('answers turns in the order they were sent, whichever process got each first', async () => {
      const first = openProcess();
      const second = openProcess();
      const key = `discord:G:${randomUUID()}`;
      const sentAtMicros = Date.now() * 1000;
      const events: string[] = [];
      // The later turn reaches its process first; the earlier one reaches the other 30 ms later.
      const later = first.run(key, async () => events.push('turn 2'), { orderMicros: sentAtMicros + 1 });
      await new Promise((resolve) => setTimeout(resolve, 30));
      const earlier = second.run(key, async () => events.push('turn 1'), { orderMicros: sentAtMicros });
      await Promise.all([later, earlier]);
      expect(events).toEqual(['turn 1', 'turn 2']);
    });

    it('extends the lock while a long task runs, so nobody else starts before it ends', async () => {
      const first = openProcess(300);
      const second = openProcess(300);
      const key = `discord:G:${randomUUID()}`;
      const events: string[] = [];
      const long = first.run(key, async () => {
        events.push('long start');
        await new Promise((resolve) => setTimeout(resolve, 1_200));
        events.push('long end');
      });
      await waitUntil(() => events.length === 1);
      await second.run(key, async () => {
        events.push('other');
      });
      await long;
      expect(events).toEqual(['long start', 'long end', 'other']);
    });

    it('frees a lock whose holder died within its ttl, and drops a dead waiter from the head of the queue', async () => {
      const survivor = openProcess();
      const key = `discord:G:${randomUUID()}`;
      // A process that took the lock for 800 ms and was killed: nobody extends or releases it.
      await redis.set(`${prefix}:lock:${key}`, 'killed-process:1', { PX: 800 });
      // And a waiter of a killed process, first in line, whose heartbeat lapses after 200 ms.
      await redis.eval(enqueueScript, {
        keys: [`${prefix}:queue:${key}`, `${prefix}:waiters:${key}`],
        arguments: ['killed-process:2', '200', '60000', ''],
      });
      const startedAt = Date.now();
      const waitedMs = await survivor.run(key, async () => Date.now() - startedAt);
      expect(waitedMs).toBeGreaterThanOrEqual(700);
      expect(waitedMs).toBeLessThan(1_500);
      expect(await redis.zCard(`${prefix}:queue:${key}`)).toBe(0);
    });

    it('frees at once a lock or a place in line left by a task of this process that is over (a failed release, Redis back from a dump)', async () => {
      // 60 s: a wait for the ttl would time the test out; the freed lock is taken at the first poll.
      const lock = openProcess(60_000);
      const other = openProcess(60_000);
      const key = `discord:G:${randomUUID()}`;
      const lockKey = `${prefix}:lock:${key}`;
      let token: string | null = null;
      await lock.run(key, async () => {
        token = await redis.get(lockKey);
      });
      expect(token).toEqual(expect.any(String));
      // Redis started again from a dump saved while that task ran: its lock is back, for a minute.
      await redis.set(lockKey, token ?? '', { PX: 60_000 });
      const startedAt = Date.now();
      const waitedMs = await lock.run(key, async () => Date.now() - startedAt);
      expect(waitedMs).toBeLessThan(10_000);
      // The same for a place in line of that task, alive for a minute by its heartbeat.
      await redis.eval(enqueueScript, {
        keys: [`${prefix}:queue:${key}`, `${prefix}:waiters:${key}`],
        arguments: [token ?? '', '60000', '60000', ''],
      });
      const queuedAt = Date.now();
      const waitedInLineMs = await lock.run(key, async () => Date.now() - queuedAt);
      expect(waitedInLineMs).toBeLessThan(10_000);
      expect(await redis.zCard(`${prefix}:queue:${key}`)).toBe(0);
      // Another process cannot know that task is over: for it the lock stands until its ttl.
      await redis.set(lockKey, token ?? '', { PX: 60_000 });
      let hasOtherRun = false;
      const otherRun = other.run(key, async () => {
        hasOtherRun = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(hasOtherRun).toBe(false);
      await redis.del(lockKey);
      await otherRun;
      expect(hasOtherRun).toBe(true);
    }, 30_000);

    it('answers many tasks of one key from three processes exactly once each, one at a time', async () => {
      const processes = [openProcess(), openProcess(), openProcess()];
      const key = `slack:T1:${randomUUID()}`;
      let running = 0;
      let mostAtOnce = 0;
      const finished: number[] = [];
      await Promise.all(
        Array.from({ length: 30 }, (_, index) =>
          processes[index % 3]?.run(key, async () => {
            running += 1;
            mostAtOnce = Math.max(mostAtOnce, running);
            await new Promise((resolve) => setTimeout(resolve, 2));
            running -= 1;
            finished.push(index);
          }),
        ),
      );
      expect(mostAtOnce).toBe(1);
      expect(finished.toSorted((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, index) => index));
    });
  },
);
