import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createRedisSlidingWindow, type SharedRateLimit } from '../../src/delivery/redis-sliding-window.ts';
import { useRedisTestClient } from '../support/redis-test-client.ts';

const redisUrl = process.env.REDIS_URL;

/** The most timestamps that fall in any `windowMs`. */
function busiestWindow(timesMs: readonly number[], windowMs: number): number {
  const sorted = timesMs.toSorted((a, b) => a - b);
  let most = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end += 1) {
    while ((sorted[end] ?? 0) - (sorted[start] ?? 0) >= windowMs) start += 1;
    most = Math.max(most, end - start + 1);
  }
  return most;
}

describe.skipIf(redisUrl === undefined)(
  redisUrl === undefined
    ? 'Redis sliding window (skipped: REDIS_URL is not set; run with REDIS_URL=redis://127.0.0.1:6379)'
    : 'Redis sliding window',
  () => {
    const { prefix, redis } = useRedisTestClient({ redisUrl: redisUrl ?? '', name: 'window' });

    /** Sends `count` calls through `window` as fast as it grants them; returns when each was "sent". */
    async function sendAll(window: SharedRateLimit, key: string, count: number): Promise<number[]> {
      const sentAtMs: number[] = [];
      for (let index = 0; index < count; index += 1) {
        for (;;) {
          const answer = await window.tryAcquire(key, Date.now());
          if (answer.isGranted) {
            sentAtMs.push(Date.now());
            // The "platform" answers in 2 ms.
            await new Promise((resolve) => setTimeout(resolve, 2));
            await answer.release({ endedAtMs: Date.now(), wasSent: true });
            break;
          }
          await new Promise((resolve) => setTimeout(resolve, Math.max(1, answer.retryAtMs - Date.now())));
        }
      }
      return sentAtMs;
    }

    it('holds three processes together to one budget: never more than the limit in any window', async () => {
      const processes = [0, 1, 2].map(() =>
        createRedisSlidingWindow({ redis, prefix, limit: 10, windowMs: 300 }),
      );
      const key = `bot-token-${randomUUID()}`;
      const startedAtMs = Date.now();
      const sent = (await Promise.all(processes.map((window) => sendAll(window, key, 20)))).flat();
      expect(sent).toHaveLength(60);
      expect(busiestWindow(sent, 300)).toBeLessThanOrEqual(10);
      // And it is not idle either: 60 calls at 10 per 300 ms take about 1.8 s.
      expect(Date.now() - startedAtMs).toBeLessThan(4_000);
    });

    it('gives a slot back when the call was never sent, and takes back the slot of a dead process after its lease', async () => {
      const window = createRedisSlidingWindow({ redis, prefix, limit: 1, windowMs: 1_000, leaseMs: 300 });
      const key = `bot-token-${randomUUID()}`;
      const first = await window.tryAcquire(key, Date.now());
      expect(first.isGranted).toBe(true);
      expect((await window.tryAcquire(key, Date.now())).isGranted).toBe(false);
      if (first.isGranted) await first.release({ endedAtMs: Date.now(), wasSent: false });
      const second = await window.tryAcquire(key, Date.now());
      expect(second.isGranted).toBe(true);
      // Never released, as when its process is killed mid-call: free again once the lease is over.
      await new Promise((resolve) => setTimeout(resolve, 350));
      expect((await window.tryAcquire(key, Date.now())).isGranted).toBe(true);
    });
  },
);
