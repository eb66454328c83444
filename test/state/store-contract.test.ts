import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Keyv } from 'keyv';
import { pino } from 'pino';
import { createStore } from '../../src/state/create-store.ts';
import { describeStoreContract } from './store-contract.ts';

const logger = pino({ level: 'silent' });
const redisUrl = process.env.REDIS_URL;

describeStoreContract({
  name: 'memory:// store',
  survivesRestart: false,
  async createBacking() {
    return {
      open: (namespace) => createStore({ storeUrl: 'memory://', namespace, logger }),
      async dispose() {},
    };
  },
});

describeStoreContract({
  name: 'sqlite:// store',
  survivesRestart: true,
  async createBacking() {
    const directory = await mkdtemp(join(tmpdir(), 'parley-store-'));
    // A folder that does not exist yet, to show the store creates it.
    const storeUrl = `sqlite://${join(directory, 'nested', 'parley.sqlite')}`;
    return {
      open: (namespace) => createStore({ storeUrl, namespace, logger }),
      dispose: () => rm(directory, { recursive: true, force: true }),
    };
  },
});

describeStoreContract({
  name:
    redisUrl === undefined
      ? 'redis:// store (skipped: REDIS_URL is not set; run with REDIS_URL=redis://127.0.0.1:6379)'
      : 'redis:// store',
  isSkipped: redisUrl === undefined,
  survivesRestart: true,
  async createBacking() {
    // Namespaces unique to this test, so parallel runs against one server never see each other's keys.
    const runId = randomUUID();
    const namespacesUsed = new Set<string>();
    const storeUrl = redisUrl ?? '';
    return {
      open(namespace) {
        namespacesUsed.add(namespace);
        return createStore({ storeUrl, namespace: `parley-test-${runId}-${namespace}`, logger });
      },
      async dispose() {
        for (const namespace of namespacesUsed) {
          const store: Keyv = createStore({
            storeUrl,
            namespace: `parley-test-${runId}-${namespace}`,
            logger,
          });
          await store.clear();
          await store.disconnect();
        }
      },
    };
  },
});

const databaseUrl = process.env.DATABASE_URL;

describeStoreContract({
  name:
    databaseUrl === undefined
      ? 'postgres:// store (skipped: DATABASE_URL is not set; run with DATABASE_URL=postgres://postgres@127.0.0.1:5432/test)'
      : 'postgres:// store',
  isSkipped: databaseUrl === undefined,
  survivesRestart: true,
  async createBacking() {
    // Namespaces unique to this test: other runs share the server and its one table.
    const runId = randomUUID().replaceAll('-', '');
    const namespacesUsed = new Set<string>();
    const storeUrl = databaseUrl ?? '';
    return {
      open(namespace) {
        namespacesUsed.add(namespace);
        return createStore({ storeUrl, namespace: `parley-test-${runId}-${namespace}`, logger });
      },
      async dispose() {
        for (const namespace of namespacesUsed) {
          const store: Keyv = createStore({
            storeUrl,
            namespace: `parley-test-${runId}-${namespace}`,
            logger,
          });
          await store.clear();
          await store.disconnect();
        }
      },
    };
  },
});
