import type { Keyv } from 'keyv';
import type { Deduper } from './dedupe.ts';
import type { KeyedLock } from './keyed-lock.ts';

/**
 * Deduper on the bot's store, so a "tell them once an hour" survives a restart (SQLite) and holds
 * across every process on one Redis. The keyv one checks and records under an in-process lock.
 */
export function createKeyvDeduper({ store, lock }: { store: Keyv; lock: KeyedLock }): Deduper {
  return {
    isFirstSighting: (id, ttlMs) =>
      lock.run(`sighting:${id}`, async () => {
        if ((await store.get(`sighting:${id}`)) !== undefined) return false;
        await store.set(`sighting:${id}`, 1, ttlMs);
        return true;
      }),
  };
}

/** The one Redis command the Redis deduper needs. */
export interface RedisSetter {
  set(
    key: string,
    value: string,
    options: { expiration: { type: 'PX'; value: number }; condition: 'NX' },
  ): Promise<unknown>;
}

/** Deduper on Redis: `SET key 1 NX PX ttl` answers "first" to exactly one process. */
export function createRedisDeduper({
  redis,
  prefix,
}: {
  redis: () => Promise<RedisSetter>;
  prefix: string;
}): Deduper {
  return {
    async isFirstSighting(id, ttlMs) {
      const reply = await (await redis()).set(`${prefix}:sighting:${id}`, '1', {
        expiration: { type: 'PX', value: Math.max(1, Math.round(ttlMs)) },
        condition: 'NX',
      });
      return reply === 'OK';
    },
  };
}
