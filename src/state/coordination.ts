import type { RateLimit, TokenBucketSize } from '../delivery/rate-limits.ts';
import { createRedisSlidingWindow, type SharedRateLimit } from '../delivery/redis-sliding-window.ts';
import { createRedisTokenBucket } from '../delivery/redis-token-bucket.ts';
import type { Logger } from '../log.ts';
import type { Store } from './create-store.ts';
import { createInMemoryDeduper, type Deduper } from './dedupe.ts';
import { createInProcessLock, type KeyedLock } from './keyed-lock.ts';
import { createOrderedLock } from './ordered-lock.ts';
import { createRedisKeyedLock, type RedisLockClient, type RedisSubscribe } from './redis-keyed-lock.ts';
import { createRedisDeduper } from './shared-deduper.ts';

/**
 * What keeps several bot processes from stepping on each other: one reply at a time per
 * conversation, one answer per platform event. On Redis every process shares them; on any other
 * store they are this process's own, which is right for the one process such a store allows.
 */
export interface Coordination {
  /** True when the locks and dedupe hold across processes (the store is Redis). */
  readonly isShared: boolean;
  /** One reply at a time per conversation, in the platform's order (see createOrderedLock). */
  readonly conversationLock: KeyedLock;
  /** Read-modify-write of shared records (the /config overrides), one writer at a time. */
  readonly recordLock: KeyedLock;
  /** Platform events seen before (Slack retries, Discord redelivery after a resume). */
  readonly eventDeduper: Deduper;
  /**
   * A rate-limit window every process counts in (a bot token's request budget); undefined when the
   * store is not shared, where the process's own queue is the whole budget.
   */
  readonly createSharedWindow:
    | ((size: { limit: number; windowMs: number; name: string }) => SharedRateLimit)
    | undefined;
  /**
   * A token bucket every process draws on (a Slack method's budget in a workspace); undefined when
   * the store is not shared.
   */
  readonly createSharedBucket: ((size: TokenBucketSize & { readonly name: string }) => RateLimit) | undefined;
  close(): Promise<void>;
}

export interface OpenCoordinationOptions {
  /** The bot's store, opened once; on Redis its client carries the locks and the dedupe. */
  readonly store: Store;
  readonly logger: Logger;
  /** How long a conversation lock outlives a process that died holding it. */
  readonly lockTtlMs: number;
  /** How long after a turn was sent it may take its conversation's lock (see the Redis lock). */
  readonly reorderWindowMs?: number;
  /** Keeps these keys apart from other users of the same Redis (tests use a unique one). */
  readonly namespace?: string;
}

/** Opens the coordination the store URL allows: shared on Redis, in-process otherwise. */
export function openCoordination({
  store,
  logger,
  lockTtlMs,
  reorderWindowMs,
  namespace = 'coordination',
}: OpenCoordinationOptions): Coordination {
  const inOrder = (lock: KeyedLock): KeyedLock =>
    createOrderedLock({
      lock,
      onPlaceGivenUp: (key) =>
        logger.warn({ key }, 'a turn held its place in its conversation too long on its way; the next go on'),
    });
  if (store.kind !== 'redis') {
    return {
      isShared: false,
      conversationLock: inOrder(createInProcessLock()),
      recordLock: createInProcessLock(),
      eventDeduper: createInMemoryDeduper(),
      createSharedWindow: undefined,
      createSharedBucket: undefined,
      close: async () => {},
    };
  }
  // Bounded with every other call on the store's connection, so one frozen call makes the rest fail fast.
  const bounded = <Result>(operation: string, call: () => Promise<Result>) => store.bound(operation, call);
  const connected = async () => {
    // Handing out the connected client asks Redis nothing: it must not end the short bound.
    const client = await store.bound('connect', () => store.redisClient(), { reachesServer: false });
    if (!client) throw new Error('the store is not a Redis store');
    return client;
  };
  const redis = async (): Promise<RedisLockClient> => {
    const client = await connected();
    return {
      eval: (script, options) => bounded('eval', () => client.eval(script, options)),
      publish: (channel, message) => bounded('publish', () => client.publish(channel, message)),
    };
  };
  // A client in subscriber mode can run no other command, so release messages get their own.
  const subscribe: RedisSubscribe = async (channel, listener) => {
    const client = (await connected()).duplicate();
    client.on('error', (error: unknown) => logger.warn({ err: error }, 'lock release listener error'));
    await client.connect();
    await client.subscribe(channel, (message) => listener(message));
    return async () => {
      client.destroy();
    };
  };
  const prefix = `parley:${namespace}`;
  const conversationLock = createRedisKeyedLock({
    ...(reorderWindowMs === undefined ? {} : { reorderWindowMs }),
    redis,
    subscribe,
    prefix: `${prefix}:conversation`,
    lockTtlMs,
    logger,
  });
  const recordLock = createRedisKeyedLock({ redis, prefix: `${prefix}:record`, lockTtlMs, logger });
  return {
    isShared: true,
    conversationLock: inOrder(conversationLock),
    recordLock,
    eventDeduper: answerWhenUnsure({
      deduper: createRedisDeduper({
        redis: async () => {
          const client = await connected();
          return { set: (key, value, options) => bounded('set', () => client.set(key, value, options)) };
        },
        prefix: `${prefix}:event`,
      }),
      logger,
    }),
    createSharedWindow: ({ limit, windowMs, name }) =>
      createRedisSlidingWindow({ redis, prefix: `${prefix}:${name}`, limit, windowMs }),
    createSharedBucket: ({ perMinute, burst, name }) =>
      createRedisTokenBucket({ redis, prefix: `${prefix}:${name}`, perMinute, burst }),
    async close() {
      await Promise.allSettled([conversationLock.close(), recordLock.close()]);
    },
  };
}

/**
 * A deduper that says "first sighting" when Redis cannot answer (frozen, down, timed out): a message
 * answered twice by two processes is a smaller harm than a message nobody answers, and the reply then
 * tells the person the bot cannot reach its memory. The failure is logged.
 */
function answerWhenUnsure({ deduper, logger }: { deduper: Deduper; logger: Logger }): Deduper {
  return {
    async isFirstSighting(id, ttlMs) {
      try {
        return await deduper.isFirstSighting(id, ttlMs);
      } catch (error) {
        logger.warn(
          { err: error, eventId: id },
          'could not check whether another process took this event; answering it',
        );
        return true;
      }
    },
  };
}
