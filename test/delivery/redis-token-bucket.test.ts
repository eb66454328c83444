import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { RateLimit } from '../../src/delivery/rate-limits.ts';
import { createRedisTokenBucket } from '../../src/delivery/redis-token-bucket.ts';
import { useRedisTestClient } from '../support/redis-test-client.ts';

const redisUrl = process.env.REDIS_URL;

describe.skipIf(redisUrl === undefined)(
  redisUrl === undefined
    ? 'Redis token bucket (skipped: REDIS_URL is not set; run with REDIS_URL=redis://127.0.0.1:6379)'
    : 'Redis token bucket',
  () => {
    const { prefix, redis } = useRedisTestClient({ redisUrl: redisUrl ?? '', name: 'bucket' });

    /** Takes tokens as fast as the bucket grants them until `untilMs`; returns when each was granted. */
    async function takeUntil(bucket: RateLimit, key: string, untilMs: number): Promise<number[]> {
      const grantedAtMs: number[] = [];
      while (Date.now() < untilMs) {
        const answer = await bucket.tryAcquire(key, Date.now());
        if (answer.isGranted) {
          grantedAtMs.push(Date.now());
          await answer.release({ endedAtMs: Date.now(), wasSent: true });
          continue;
        }
        const waitMs = Math.min(answer.retryAtMs, untilMs) - Date.now();
        await new Promise((resolve) => setTimeout(resolve, Math.max(1, waitMs)));
      }
      return grantedAtMs;
    }

    it('holds three processes to one bucket: the burst, then the refill rate, whoever asks', async () => {
      // 600 a minute is 10 a second: in 1.5 s a burst of 5 and about 15 refilled, together.
      const processes = [0, 1, 2].map(() =>
        createRedisTokenBucket({ redis, prefix, perMinute: 600, burst: 5 }),
      );
      const key = `workspace-${randomUUID()} chat.update`;
      const untilMs = Date.now() + 1_500;
      const granted = (await Promise.all(processes.map((bucket) => takeUntil(bucket, key, untilMs)))).flat();
      expect(granted.length).toBeGreaterThanOrEqual(17);
      expect(granted.length).toBeLessThanOrEqual(21);
      // Each process alone with a bucket of its own would have taken three times as many.
    });

    it('gives a token back when the call was never sent', async () => {
      const bucket = createRedisTokenBucket({ redis, prefix, perMinute: 1, burst: 1 });
      const key = `workspace-${randomUUID()} chat.startStream`;
      const first = await bucket.tryAcquire(key, Date.now());
      expect(first.isGranted).toBe(true);
      const refused = await bucket.tryAcquire(key, Date.now());
      expect(refused.isGranted).toBe(false);
      if (!refused.isGranted) expect(refused.retryAtMs - Date.now()).toBeGreaterThan(50_000);
      if (first.isGranted) await first.release({ endedAtMs: Date.now(), wasSent: false });
      expect((await bucket.tryAcquire(key, Date.now())).isGranted).toBe(true);
    });
  },
);
