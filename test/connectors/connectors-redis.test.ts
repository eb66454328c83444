import { randomBytes, randomUUID } from 'node:crypto';
import { createClient } from '@redis/client';
import { afterEach, describe, expect, it } from 'vitest';
import { createAuditLog } from '../../src/audit/audit-log.ts';
import { AtRestEncryption, parseEncryptionKey } from '../../src/secrets/encryption-at-rest.ts';
import { createStore } from '../../src/state/create-store.ts';
import { createRedisKeyedLock } from '../../src/state/redis-keyed-lock.ts';
import { createCapturedLogger } from '../support/capture-logger.ts';
import { startOAuthMcpServer } from '../support/oauth-mcp-server.ts';
import {
  conversationKey,
  followLink,
  linkIn,
  personActor,
  runContext,
  type SharedState,
  startParley,
} from './connector-harness.ts';

/**
 * Two parley processes on one Redis: each its own connections to the store and its own lock client,
 * as two containers would have. An expiring token is refreshed by one of them only; the other reads
 * the refreshed one. Skipped without REDIS_URL (.ci/run sets it).
 */
const redisUrl = process.env.REDIS_URL;
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe.skipIf(!redisUrl)('connectors on Redis, two processes', () => {
  it('refresh an expiring token once', async () => {
    const url = redisUrl ?? '';
    const server = await startOAuthMcpServer();
    cleanups.push(() => server.close());
    const prefix = `parley-test-connectors-${randomUUID()}`;
    const key = randomBytes(32).toString('hex');
    let clockMs = Date.now();
    const process = async (): Promise<SharedState> => {
      const { logger } = createCapturedLogger();
      const redis = createClient({ url });
      await redis.connect();
      cleanups.push(async () => {
        for (const stale of await redis.keys(`${prefix}*`)) await redis.del(stale);
        redis.destroy();
      });
      const lock = createRedisKeyedLock({
        redis: async () => redis,
        prefix: `${prefix}:record`,
        logger,
      });
      const open = (namespace: string) => {
        const store = createStore({
          storeUrl: url,
          namespace: `${prefix.replaceAll(':', '-')}-${namespace}`,
          logger,
        });
        cleanups.push(async () => {
          await store.clear();
          await store.disconnect();
        });
        return store;
      };
      return {
        tokens: open('connectors'),
        links: open('links'),
        audit: createAuditLog({ store: open('audit'), lock, logger, minimumRetentionDays: undefined }),
        encryption: new AtRestEncryption({
          current: parseEncryptionKey({ value: key, variable: 'CONNECTOR_TOKENS_KEY' }),
        }),
        lock,
      };
    };
    const servers = { crm: { url: server.url, auth: 'person' } };
    const one = await startParley({ servers, shared: await process(), nowMs: () => clockMs });
    const two = await startParley({ servers, shared: await process(), nowMs: () => clockMs });
    cleanups.push(
      () => one.close(),
      () => two.close(),
    );
    const actor = personActor('alice');
    const told: string[] = [];
    const connectTool = (await one.connectors.toolsFor({ actor, conversationKey })).tools[0];
    await connectTool?.run({ arguments: {}, context: runContext(actor, told) });
    server.nextAccount = 'alice@crm';
    expect((await followLink(linkIn(told[0]))).status).toBe(200);
    clockMs += 3_600_000;
    const whoami = async (subject: typeof one) => {
      const { tools } = await subject.connectors.toolsFor({ actor, conversationKey });
      return tools
        .find((tool) => tool.name === 'crm_whoami')
        ?.run({ arguments: {}, context: runContext(actor) });
    };
    const answers = await Promise.all([whoami(one), whoami(two)]);
    expect(answers.map((answer) => answer?.text)).toEqual([
      expect.stringContaining('acting as alice@crm'),
      expect.stringContaining('acting as alice@crm'),
    ]);
    expect(server.refreshCount).toBe(1);
  });
});
