import { randomUUID } from 'node:crypto';
import { trace } from '@opentelemetry/api';
import { createClient } from '@redis/client';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Coordination, openCoordination } from '../../src/state/coordination.ts';
import { openStore, type Store } from '../../src/state/create-store.ts';
import { createInProcessLock } from '../../src/state/keyed-lock.ts';
import { createOrderedLock } from '../../src/state/ordered-lock.ts';
import { ATTR_PARLEY_LINK_REASON } from '../../src/tracing/span-attributes.ts';
import { inSpan } from '../../src/tracing/tracer.ts';
import { useInMemoryTracing } from '../support/in-memory-tracing.ts';

/**
 * Issue 38, across processes: the conversation lock on Redis hands its holder's trace context to
 * the turn that waited for it, which links to it. Two coordinations on one Redis are two processes'
 * views of the lock (the bots' own two-process test is two-process-traces.test.ts).
 */
const exporter = useInMemoryTracing();
const logger = pino({ level: 'silent' });
const redisUrl = process.env.REDIS_URL;
afterEach(() => exporter.reset());

const named = (name: string) => exporter.getFinishedSpans().find((span) => span.name === name);

describe.skipIf(redisUrl === undefined)(
  redisUrl === undefined
    ? 'the Redis lock hands over the trace (skipped: REDIS_URL is not set; run with REDIS_URL=redis://127.0.0.1:6379)'
    : 'the Redis lock hands over the trace',
  () => {
    const namespace = `parley-test-handover-${randomUUID()}`;
    const stores: Store[] = [];
    const opened: Coordination[] = [];
    const redis = createClient({ url: redisUrl ?? '' });
    const openProcess = () => {
      const store = openStore({ storeUrl: redisUrl ?? '', logger });
      stores.push(store);
      const coordination = openCoordination({ store, logger, namespace, lockTtlMs: 5_000 });
      opened.push(coordination);
      return coordination.conversationLock;
    };
    beforeAll(() => redis.connect());
    afterAll(async () => {
      await Promise.all(opened.map((coordination) => coordination.close()));
      await Promise.all(stores.map((store) => store.close()));
      for (const key of await redis.keys(`parley:${namespace}:*`)) await redis.del(key);
      redis.destroy();
    });

    it('the turn that waited links to the turn of the other process that held the lock', async () => {
      const first = openProcess();
      const second = openProcess();
      const key = `discord:G1:${randomUUID()}`;
      const holding = Promise.withResolvers<void>();
      const held = Promise.withResolvers<void>();
      const firstTurn = inSpan({ name: 'turn one', isRoot: true }, () =>
        first.run(key, async () => {
          held.resolve();
          await holding.promise;
        }),
      );
      await held.promise;
      const secondTurn = inSpan({ name: 'turn two', isRoot: true }, () => second.run(key, async () => 'ran'));
      // The second turn is queued behind the first before the first lets go.
      await new Promise((resolve) => setTimeout(resolve, 300));
      holding.resolve();
      await firstTurn;
      expect(await secondTurn).toBe('ran');
      const one = named('turn one');
      const two = named('turn two');
      expect(two?.spanContext().traceId).not.toBe(one?.spanContext().traceId);
      expect(two?.links).toHaveLength(1);
      expect(two?.links[0]?.context).toMatchObject({
        traceId: one?.spanContext().traceId,
        spanId: one?.spanContext().spanId,
      });
      expect(two?.links[0]?.attributes?.[ATTR_PARLEY_LINK_REASON]).toBe('lock handed over');
      // What the first turn left was taken by the second, which left its own, for a while only.
      const [left, ...others] = await redis.keys(`parley:${namespace}:*handover*`);
      expect(others).toEqual([]);
      expect(await redis.get(left ?? '')).toContain(two?.spanContext().spanId);
      expect(await redis.pTTL(left ?? '')).toBeGreaterThan(0);
    });

    it('a turn that found the lock free links to nothing, though a turn ended there before', async () => {
      const first = openProcess();
      const second = openProcess();
      const key = `discord:G1:${randomUUID()}`;
      await inSpan({ name: 'earlier turn', isRoot: true }, () => first.run(key, async () => undefined));
      await inSpan({ name: 'later turn', isRoot: true }, () => second.run(key, async () => undefined));
      expect(named('later turn')?.links).toEqual([]);
    });
  },
);

describe('the ordered lock', () => {
  it('runs a turn let in by the turn ahead of it in its own trace, not in the one ahead', async () => {
    const lock = createOrderedLock({ lock: createInProcessLock() });
    const key = 'discord:G1:C1';
    const traceIdInside: Record<string, string | undefined> = {};
    const turn = (name: string, orderMicros: number, beforeLock: Promise<void>) =>
      inSpan({ name, isRoot: true }, async () => {
        await beforeLock;
        return lock.run(
          key,
          async () => {
            traceIdInside[name] = trace.getActiveSpan()?.spanContext().traceId;
          },
          { orderMicros },
        );
      });
    // Both take their places as their events arrive; the later one reaches the lock first, so the
    // earlier one is what lets it in.
    lock.reserve?.(key, 1);
    lock.reserve?.(key, 2);
    const earlierReady = Promise.withResolvers<void>();
    const later = turn('later', 2, Promise.resolve());
    await new Promise((resolve) => setTimeout(resolve, 20));
    const earlier = turn('earlier', 1, earlierReady.promise);
    earlierReady.resolve();
    await Promise.all([earlier, later]);
    expect(traceIdInside.later).toBe(named('later')?.spanContext().traceId);
    expect(traceIdInside.earlier).toBe(named('earlier')?.spanContext().traceId);
  });
});
