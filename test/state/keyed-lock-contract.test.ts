import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { openCoordination } from '../../src/state/coordination.ts';
import type { KeyedLock } from '../../src/state/keyed-lock.ts';
import { createInProcessLock } from '../../src/state/keyed-lock.ts';
import { describeKeyedLockContract } from './keyed-lock-contract.ts';

const logger = pino({ level: 'silent' });
const redisUrl = process.env.REDIS_URL;

describeKeyedLockContract({
  name: 'in-process lock',
  async createBacking() {
    const lock = createInProcessLock();
    return { open: () => lock, uniqueKey: () => randomUUID(), async dispose() {} };
  },
});

describeKeyedLockContract({
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
          storeUrl: redisUrl ?? '',
          logger,
          operationTimeoutMs: 5_000,
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
