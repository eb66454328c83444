import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { openSpendBackend, type SpendBackend } from '../../src/spending/spend-backend.ts';
import { createStore, openStore, redisClientOf } from '../../src/state/create-store.ts';
import { describeSpendStoreContract } from './spend-store-contract.ts';

const logger = pino({ level: 'silent' });
const redisUrl = process.env.REDIS_URL;
const postgresUrl = process.env.DATABASE_URL;

// A backend on a store of its own, as one bot process has: closing it closes that store.
function openBackendOn({
  storeUrl,
  namespace,
  userRequestsPerMinute,
}: {
  storeUrl: string;
  namespace?: string;
  userRequestsPerMinute: number | undefined;
}): SpendBackend {
  const store = openStore({ storeUrl, logger, operationTimeoutMs: 2_000 });
  const backend = openSpendBackend({
    store,
    ...(namespace === undefined ? {} : { namespace }),
    userRequestsPerMinute,
  });
  return { ...backend, close: () => store.close() };
}

describeSpendStoreContract({
  name: 'spend store on memory://',
  survivesRestart: false,
  isShared: false,
  async createBacking() {
    // memory:// keeps one Map per store, so one backend stands for the process.
    let backend: SpendBackend | undefined;
    return {
      open: (options) => {
        backend ??= openBackendOn({
          storeUrl: 'memory://',
          userRequestsPerMinute: options?.userRequestsPerMinute,
        });
        return backend;
      },
      async dispose() {},
    };
  },
});

describeSpendStoreContract({
  name: 'spend store on sqlite://',
  survivesRestart: true,
  isShared: false,
  async createBacking() {
    const directory = await mkdtemp(join(tmpdir(), 'parley-spend-'));
    const storeUrl = `sqlite://${join(directory, 'parley.sqlite')}`;
    return {
      open: (options) => openBackendOn({ storeUrl, userRequestsPerMinute: options?.userRequestsPerMinute }),
      dispose: () => rm(directory, { recursive: true, force: true }),
    };
  },
});

describeSpendStoreContract({
  name:
    redisUrl === undefined
      ? 'spend store on redis:// (skipped: REDIS_URL is not set; run with REDIS_URL=redis://127.0.0.1:6379)'
      : 'spend store on redis://, two connections as two processes',
  isSkipped: redisUrl === undefined,
  survivesRestart: true,
  isShared: true,
  async createBacking() {
    const namespace = `spend-test-${randomUUID()}`;
    const storeUrl = redisUrl ?? '';
    return {
      open: (options) =>
        openBackendOn({ storeUrl, namespace, userRequestsPerMinute: options?.userRequestsPerMinute }),
      async dispose() {
        const keyv = createStore({ storeUrl, namespace: 'cleanup', logger });
        const client = await redisClientOf(keyv);
        const keys = (await client?.keys(`parley:${namespace}:*`)) ?? [];
        if (keys.length > 0) await client?.del(keys);
        await keyv.disconnect();
      },
    };
  },
});

describeSpendStoreContract({
  name:
    postgresUrl === undefined
      ? 'spend store on postgres:// (skipped: DATABASE_URL is not set; run with DATABASE_URL=postgres://postgres@127.0.0.1:5432/test)'
      : 'spend store on postgres://',
  isSkipped: postgresUrl === undefined,
  survivesRestart: true,
  isShared: false,
  async createBacking() {
    const namespace = `spend-test-${randomUUID()}`;
    const storeUrl = postgresUrl ?? '';
    return {
      open: (options) =>
        openBackendOn({ storeUrl, namespace, userRequestsPerMinute: options?.userRequestsPerMinute }),
      async dispose() {
        const keyv = createStore({ storeUrl, namespace, logger });
        await keyv.clear();
        await keyv.disconnect();
      },
    };
  },
});
