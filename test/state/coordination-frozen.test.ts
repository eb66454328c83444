import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { openCoordination } from '../../src/state/coordination.ts';
import { openStore } from '../../src/state/create-store.ts';
import { createCapturedLogger } from '../support/capture-logger.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';

const redisUrl = process.env.REDIS_URL;
let proxy: TcpProxy | undefined;
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  proxy?.thaw();
  await Promise.allSettled(closers.splice(0).map((close) => close()));
  await proxy?.close();
  proxy = undefined;
});

/**
 * When Redis freezes, the shared event dedupe cannot say whether another process took a message; the
 * message must still be answered (the reply then says the bot cannot reach its memory), not dropped.
 * `npm run faults` shows the same end to end (store-redis-frozen).
 */
describe.skipIf(redisUrl === undefined)(
  redisUrl === undefined
    ? 'event dedupe on a frozen Redis (skipped: REDIS_URL is not set; run with REDIS_URL=redis://127.0.0.1:6379)'
    : 'event dedupe on a frozen Redis',
  () => {
    it('answers "first sighting" within the operation timeout and logs why, instead of hanging or throwing', async () => {
      const target = new URL(redisUrl ?? '');
      proxy = await startTcpProxy({ targetHost: target.hostname, targetPort: Number(target.port || 6379) });
      const store = openStore({
        storeUrl: `redis://127.0.0.1:${proxy.port}`,
        logger: pino({ level: 'silent' }),
        operationTimeoutMs: 500,
      });
      closers.push(() => store.close());
      const { logger, output } = createCapturedLogger([]);
      const coordination = openCoordination({
        store,
        logger,
        lockTtlMs: 5_000,
        namespace: `parley-test-frozen-${randomUUID()}`,
      });
      closers.push(() => coordination.close());
      expect(await coordination.eventDeduper.isFirstSighting('event:before', 60_000)).toBe(true);
      expect(await coordination.eventDeduper.isFirstSighting('event:before', 60_000)).toBe(false);

      proxy.freeze();
      const startedAtMs = Date.now();
      expect(await coordination.eventDeduper.isFirstSighting('event:while-frozen', 60_000)).toBe(true);
      expect(Date.now() - startedAtMs).toBeLessThan(2_000);
      expect(output()).toContain('could not check whether another process took this event; answering it');
    });

    it("after a call went unanswered, a Discord request's shared-window script gives up within the short bound", async () => {
      const target = new URL(redisUrl ?? '');
      proxy = await startTcpProxy({ targetHost: target.hostname, targetPort: Number(target.port || 6379) });
      const store = openStore({
        storeUrl: `redis://127.0.0.1:${proxy.port}`,
        logger: pino({ level: 'silent' }),
        operationTimeoutMs: 2_000,
      });
      closers.push(() => store.close());
      const namespace = `parley-test-frozen-${randomUUID()}`;
      const history = store.namespace(namespace);
      const coordination = openCoordination({
        store,
        logger: pino({ level: 'silent' }),
        lockTtlMs: 5_000,
        namespace,
      });
      closers.push(() => coordination.close());
      const window = coordination.createSharedWindow?.({ limit: 50, windowMs: 1_000, name: 'discord-rest' });
      expect(await history.get('conversation')).toBeUndefined();

      proxy.freeze();
      // The turn's history read waits out the whole bound, as the first unanswered call does.
      await expect(history.get('conversation')).rejects.toMatchObject({ timeoutMs: 2_000 });
      // Its "cannot reach my memory" post then asks the shared window: it must not wait two seconds more.
      await expect(window?.tryAcquire('bot', Date.now())).rejects.toMatchObject({
        name: 'StoreTimeoutError',
        timeoutMs: 250,
      });
    });
  },
);
