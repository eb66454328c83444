import KeyvRedis, { defaultReconnectStrategy, type RedisClientType } from '@keyv/redis';
import { Keyv, type KeyvStoreAdapter } from 'keyv';
import type { Logger } from 'pino';
import { timeStoreCalls } from '../operations/time-store-calls.ts';
import { PostgresStore } from './postgres-store.ts';
import { SqliteStore } from './sqlite-store.ts';
import { parseStoreUrl, redactStoreUrl, type StoreLocation } from './store-url.ts';
import { boundStoreTime } from './time-bound-store.ts';

export { defaultStoreUrl, StoreUrlError } from './store-url.ts';

/** A down Redis repeats the same error on every reconnect attempt; one line a minute is enough. */
const repeatedErrorLogIntervalMs = 60_000;

export interface CreateStoreOptions {
  /** `memory://`, `sqlite://./data/parley.sqlite`, `sqlite:///abs/path`, `redis://…` or `rediss://…`. */
  readonly storeUrl: string;
  /**
   * Keeps this store's keys apart from other stores on the same file or server (`history`,
   * `settings`); `clear()` empties only this namespace. Must not contain ":".
   */
  readonly namespace: string;
  readonly logger: Logger;
  /** How long a Redis operation waits for a connection before it fails instead of hanging. */
  readonly redisConnectTimeoutMs?: number;
  /**
   * The longest any operation of a server-backed store may take before it fails; a server that keeps
   * the connection open but stops answering would otherwise hang the turn. Default 5 s.
   */
  readonly operationTimeoutMs?: number;
}

/**
 * Opens the keyv store a URL names.
 *
 * Every backend behaves the same way: operations reject when the backend fails (keyv's default would
 * read a failure as "no value", and a history read that way and then written back loses the
 * conversation), and backend errors are also logged, with the URL's password redacted, instead of
 * crashing the process.
 */
export function createStore({
  storeUrl,
  namespace,
  logger,
  redisConnectTimeoutMs = 5_000,
  operationTimeoutMs = 5_000,
}: CreateStoreOptions): Keyv {
  if (namespace === '' || namespace.includes(':')) {
    throw new Error(`A store namespace must be non-empty and contain no ":"; got "${namespace}"`);
  }
  const location = parseStoreUrl({ storeUrl });
  const keyv = new Keyv({
    store: openAdapter({ location, redisConnectTimeoutMs, operationTimeoutMs }),
    namespace,
    // SqliteStore and @keyv/redis prefix keys with the namespace themselves (a memory Map belongs to one
    // store alone). keyv's own prefixing would double that, and it leaves a key that already starts
    // with "namespace:" unprefixed, so key "history:x" would collide with key "x".
    useKeyPrefix: false,
    throwOnErrors: true,
  });
  logStoreErrors({ keyv, logger, redactedStoreUrl: redactStoreUrl(storeUrl), namespace });
  return timeStoreCalls({ keyv, backend: location.kind });
}

/**
 * @keyv/redis connects on the first operation, and a second operation started meanwhile finds the
 * client open but not ready; with the offline queue off (see above) it fails with "The client is
 * offline". Operations that arrive while the first connection is made wait for that same attempt.
 */
function connectingOnce(adapter: KeyvRedis<unknown>): KeyvRedis<unknown> {
  const connect = adapter.getClient.bind(adapter);
  let connecting: ReturnType<typeof connect> | undefined;
  adapter.getClient = () => {
    connecting ??= connect().finally(() => {
      connecting = undefined;
    });
    return connecting;
  };
  return adapter;
}

/**
 * The Redis client under a store createStore opened on a `redis://` URL, connected (undefined for
 * other stores): for what keyv cannot say, such as an atomic script or `SET … NX`.
 */
export async function redisClientOf(keyv: Keyv): Promise<RedisClientType | undefined> {
  const adapter = keyv.store as { getClient?: () => Promise<unknown> };
  if (typeof adapter.getClient !== 'function') return undefined;
  return (await adapter.getClient()) as RedisClientType;
}

function openAdapter({
  location,
  redisConnectTimeoutMs,
  operationTimeoutMs,
}: {
  location: StoreLocation;
  redisConnectTimeoutMs: number;
  operationTimeoutMs: number;
}): KeyvStoreAdapter | Map<string, unknown> {
  switch (location.kind) {
    case 'memory':
      return new Map<string, unknown>();
    case 'sqlite':
      return new SqliteStore({ filePath: location.filePath });
    case 'postgres':
      return boundStoreTime(new PostgresStore({ url: location.url }), operationTimeoutMs);
    case 'redis':
      return boundStoreTime(
        connectingOnce(
          new KeyvRedis(
            {
              url: location.url,
              // Without this, commands issued while the connection is down wait in a queue until Redis is
              // back, and a user's turn hangs instead of failing with a message.
              disableOfflineQueue: true,
              socket: { reconnectStrategy: defaultReconnectStrategy },
            },
            // Without connectionTimeout the first operation against an unreachable Redis never settles.
            { throwOnErrors: true, connectionTimeout: redisConnectTimeoutMs },
          ),
        ),
        operationTimeoutMs,
      );
  }
}

function logStoreErrors({
  keyv,
  logger,
  redactedStoreUrl,
  namespace,
}: {
  keyv: Keyv;
  logger: Logger;
  redactedStoreUrl: string;
  namespace: string;
}): void {
  const lastLoggedAtMsByMessage = new Map<string, number>();
  keyv.on('error', (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    const nowMs = Date.now();
    const lastLoggedAtMs = lastLoggedAtMsByMessage.get(message);
    if (lastLoggedAtMs !== undefined && nowMs - lastLoggedAtMs < repeatedErrorLogIntervalMs) return;
    // Bounded: a handful of distinct messages in practice, and forgetting one only logs it again.
    if (lastLoggedAtMsByMessage.size >= 100) lastLoggedAtMsByMessage.clear();
    lastLoggedAtMsByMessage.set(message, nowMs);
    logger.error({ err: error, storeUrl: redactedStoreUrl, namespace }, 'store error');
  });
}
