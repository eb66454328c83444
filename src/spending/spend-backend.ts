import type { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import type { Store } from '../state/create-store.ts';
import type { Deduper } from '../state/dedupe.ts';
import { createInProcessLock } from '../state/keyed-lock.ts';
import { createKeyvDeduper, createRedisDeduper } from '../state/shared-deduper.ts';
import { createKeyvSpendStore } from './keyv-spend-store.ts';
import { createRedisSpendStore } from './redis-spend-store.ts';
import type { SpendStore } from './spend-store.ts';

/** Counts one person's requests a minute; undefined when there is no limit. */
export interface RequestRate {
  /** Takes one request from `userId`'s minute; when none is left, says how long until one is. */
  take(userId: string): Promise<{ isAllowed: true } | { isAllowed: false; retryAfterMs: number }>;
}

/** Spending, "once an hour" notices and the request rate, on the bot's store. */
export interface SpendBackend {
  readonly store: SpendStore;
  /** Remembers what a person or channel was told, and for how long not to tell them again. */
  readonly sightings: Deduper;
  readonly requestRate: RequestRate | undefined;
  close(): Promise<void>;
}

/**
 * Opens the spend backend on the bot's store. Redis gets its atomic scripts (several processes share
 * it); memory and SQLite get keyv records under an in-process lock (one process).
 */
export function openSpendBackend({
  store,
  namespace = 'spend',
  userRequestsPerMinute,
}: {
  store: Store;
  /** Keeps these keys apart from other users of the same store (tests use a unique one). */
  namespace?: string;
  userRequestsPerMinute: number | undefined;
}): SpendBackend {
  const keyv = store.namespace(namespace);
  if (store.kind !== 'redis') {
    const lock = createInProcessLock();
    return {
      store: createKeyvSpendStore({ store: keyv, lock }),
      sightings: createKeyvDeduper({ store: keyv, lock }),
      requestRate: userRequestsPerMinute === undefined ? undefined : memoryRate(userRequestsPerMinute),
      close: () => keyv.disconnect(),
    };
  }
  // Bounded with every other call on the store's connection (STORE_TIMEOUT_MS, see StoreTimeBound).
  const bounded = <Result>(operation: string, call: () => Promise<Result>) => store.bound(operation, call);
  // Handing out the connected client asks Redis nothing: it must not end the short bound.
  const redis = () => store.bound('connect', () => connectedClient(store), { reachesServer: false });
  const prefix = `parley:${namespace}`;
  return {
    store: createRedisSpendStore({
      redis: async () => {
        const client = await redis();
        return { eval: (script, options) => bounded('eval', () => client.eval(script, options)) };
      },
      prefix,
    }),
    sightings: createRedisDeduper({
      redis: async () => {
        const client = await redis();
        return { set: (key, value, options) => bounded('set', () => client.set(key, value, options)) };
      },
      prefix,
    }),
    requestRate:
      userRequestsPerMinute === undefined
        ? undefined
        : redisRate({ redis, perMinute: userRequestsPerMinute, keyPrefix: `${prefix}:rate`, bounded }),
    close: () => keyv.disconnect(),
  };
}

async function connectedClient(store: Store) {
  const client = await store.redisClient();
  if (!client) throw new Error('the store is not a Redis store');
  return client;
}

/**
 * rate-limiter-flexible, imported when a person's first request is counted: at idle it held 36
 * modules a process without a per-person limit never uses (`npm run bench:memory -- --modules`).
 */
let rateLimiterLibrary: Promise<typeof import('rate-limiter-flexible')> | undefined;
const loadRateLimiterLibrary = () => {
  rateLimiterLibrary ??= import('rate-limiter-flexible');
  return rateLimiterLibrary;
};

function memoryRate(perMinute: number): RequestRate {
  let limiter: RequestRate | undefined;
  return {
    async take(userId) {
      if (limiter === undefined) {
        const { RateLimiterMemory } = await loadRateLimiterLibrary();
        limiter ??= fromLimiter(new RateLimiterMemory({ points: perMinute, duration: 60 }));
      }
      return limiter.take(userId);
    },
  };
}

// rate-limiter-flexible counts in Redis with its own atomic script, shared by every process.
function redisRate({
  redis,
  perMinute,
  keyPrefix,
  bounded,
}: {
  redis: () => Promise<unknown>;
  perMinute: number;
  keyPrefix: string;
  bounded: <Result>(operation: string, call: () => Promise<Result>) => Promise<Result>;
}): RequestRate {
  let limiter: RateLimiterRedis | undefined;
  return {
    async take(userId) {
      const { RateLimiterRedis } = await loadRateLimiterLibrary();
      limiter ??= new RateLimiterRedis({
        storeClient: await redis(),
        useRedisPackage: true,
        points: perMinute,
        duration: 60,
        keyPrefix,
      });
      const current = limiter;
      return bounded('rate', () => fromLimiter(current).take(userId));
    },
  };
}

function fromLimiter(limiter: RateLimiterMemory | RateLimiterRedis): RequestRate {
  return {
    async take(userId) {
      try {
        await limiter.consume(userId);
        return { isAllowed: true };
      } catch (rejection) {
        // The library rejects with its result when the points are used up, and with an Error when
        // the store failed: only the first means "slow down".
        const { RateLimiterRes } = await loadRateLimiterLibrary();
        if (rejection instanceof RateLimiterRes) {
          return { isAllowed: false, retryAfterMs: rejection.msBeforeNext };
        }
        throw rejection;
      }
    },
  };
}
