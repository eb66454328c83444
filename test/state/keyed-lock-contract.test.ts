import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { afterAll } from 'vitest';
import { openCoordination } from '../../src/state/coordination.ts';
import { openStore, type Store } from '../../src/state/create-store.ts';
import type { KeyedLock } from '../../src/state/keyed-lock.ts';
import { createInProcessLock } from '../../src/state/keyed-lock.ts';
import { createOrderedLock } from '../../src/state/ordered-lock.ts';
import { describeKeyedLockContract } from './keyed-lock-contract.ts';

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

describeKeyedLockContract({
  name: 'in-process lock',
  async createBacking() {
    const lock = createInProcessLock();
    return { open: () => lock, uniqueKey: () => randomUUID(), async dispose() {} };
  },
});

describeKeyedLockContract({
  name: "in-process lock in the platform's order",
  hasPlaces: true,
  async createBacking() {
    const lock = createOrderedLock({ lock: createInProcessLock() });
    return { open: () => lock, uniqueKey: () => randomUUID(), async dispose() {} };
  },
});

describeKeyedLockContract({
  hasPlaces: true,
  name:
    redisUrl === undefined
      ? 'Redis lock (skipped: REDIS_URL is not set; run with REDIS_URL=redis://127.0.0.1:6379)'
      : 'Redis lock',
  isSkipped: redisUrl === undefined,
  async createBacking() {
    const namespace = `parley-test-lock-${randomUUID()}`;
    const opened: { conversationLock: KeyedLock; close(): Promise<void> }[] = [];
    return {
      open() {
        const coordination = openCoordination({
          store: openTestStore(redisUrl ?? ''),
          logger,
          lockTtlMs: 2_000,
          namespace,
        });
        opened.push(coordination);
        return coordination.conversationLock;
      },
      uniqueKey: () => `discord:guild:${randomUUID()}`,
      async dispose() {
        await Promise.all(opened.map((coordination) => coordination.close()));
      },
    };
  },
});
