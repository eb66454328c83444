import { randomUUID } from 'node:crypto';
import { createClient } from '@redis/client';
import { afterAll, beforeAll } from 'vitest';

/**
 * A Redis client for the tests of one describe block, connected before them and closed after, with
 * a key prefix of its own whose keys are deleted at the end. Call it inside the describe block.
 */
export function useRedisTestClient({ redisUrl, name }: { redisUrl: string; name: string }) {
  const client = createClient({ url: redisUrl });
  const prefix = `parley-test-${name}-${randomUUID()}`;
  beforeAll(async () => {
    await client.connect();
  });
  afterAll(async () => {
    for (const key of await client.keys(`${prefix}:*`)) await client.del(key);
    client.destroy();
  });
  return { client, prefix, redis: async () => client };
}
