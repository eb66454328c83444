import { createRequire } from 'node:module';
import type KeyvRedis from '@keyv/redis';
import type { RedisClientType } from '@keyv/redis';
import { Keyv, type KeyvStoreAdapter } from 'keyv';
import type { Logger } from 'pino';
import { timeStoreCalls } from '../operations/time-store-calls.ts';
import { type SpaceReclaimed, SqliteStore } from './sqlite-store.ts';
import { parseStoreUrl, redactStoreUrl, type StoreLocation } from './store-url.ts';
import {
  type BoundCallOptions,
  boundStoreTime,
  createStoreTimeBound,
  type StoreTimeBound,
} from './time-bound-store.ts';

export type { SpaceReclaimed } from './sqlite-store.ts';
export { defaultStoreUrl, StoreUrlError } from './store-url.ts';

/**
 * The drivers of the server stores are loaded when a store URL names one, not at start: a bot on
 * SQLite never holds the Redis client (400 modules) or pg. Synchronously, because opening a store is.
 */
const requireDriver = createRequire(import.meta.url);
const redisDriver = () => requireDriver('@keyv/redis') as typeof import('@keyv/redis');
const postgresDriver = () => requireDriver('./postgres-store.ts') as typeof import('./postgres-store.ts');

/** A down Redis repeats the same error on every reconnect attempt; one line a minute is enough. */
const repeatedErrorLogIntervalMs = 60_000;

/** How to reach the store: one URL for every use of it. */
export interface OpenStoreOptions {
  /** `memory://`, `sqlite://./data/parley.sqlite`, `sqlite:///abs/path`, `redis://…` or `rediss://…`. */
  readonly storeUrl: string;
  readonly logger: Logger;
  /** How long a Redis operation waits for a connection before it fails instead of hanging. */
  readonly redisConnectTimeoutMs?: number;
  /**
   * The longest any operation of a server-backed store may take before it fails; a server that keeps
   * the connection open but stops answering would otherwise hang the turn. Default 5 s.
   */
  readonly operationTimeoutMs?: number;
}

export interface CreateStoreOptions extends OpenStoreOptions {
  /**
   * Keeps this store's keys apart from other stores on the same file or server (`history`,
   * `settings`); `clear()` empties only this namespace. Must not contain ":".
   */
  readonly namespace: string;
}

/**
 * The bot's store, opened once: one connection (a Redis client, a SQLite file) under every use of it,
 * each use a keyv namespace of its own.
 */
export interface Store {
  readonly kind: StoreLocation['kind'];
  /** True when several parley processes can share it (a server store): then locks and counts must hold across them. */
  readonly isShared: boolean;
  /**
   * A keyv store for one use (`history`, `settings`): its keys apart from every other namespace's, and
   * `clear()` empties only them. The name must not contain ":". Its `disconnect()` gives up its share
   * of the connection, which closes with the last one.
   */
  namespace(name: string): Keyv;
  /** The connected Redis client, for what keyv cannot say (an atomic script, `SET … NX`); undefined on other stores. */
  redisClient(): Promise<RedisClientType | undefined>;
  /**
   * Bounds a call to the store's server in time (STORE_TIMEOUT_MS), together with every other call
   * on its connection (see StoreTimeBound): what the Redis scripts and `SET … NX` go through.
   */
  bound<Result>(operation: string, call: () => Promise<Result>, options?: BoundCallOptions): Promise<Result>;
  /**
   * Deletes entries whose time to live has passed, of every namespace: a file or table store keeps
   * them until they are read again (Redis drops them itself). Resolves with how many went.
   */
  dropExpired(): Promise<number>;
  /**
   * Gives the space of deleted entries back (SQLite: incremental vacuum); undefined where the
   * server manages its own space (Redis, Postgres's autovacuum) or there is no file (memory).
   */
  reclaimSpace(): Promise<SpaceReclaimed | undefined>;
  /** Closes every namespace opened here and the connection. */
  close(): Promise<void>;
}

/**
 * Opens the store a URL names, once for the whole process.
 *
 * Every backend behaves the same way: operations reject when the backend fails (keyv's default would
 * read a failure as "no value", and a history read that way and then written back loses the
 * conversation), and backend errors are also logged, with the URL's password redacted, instead of
 * crashing the process.
 */
export function openStore(options: OpenStoreOptions): Store {
  return open({ ...options, isHeldOpen: true });
}

/**
 * Opens one keyv namespace on a connection of its own, closed by its `disconnect()`: for a tool or a
 * test that needs one namespace. The bot opens its store once with `openStore`.
 */
export function createStore({ namespace, ...options }: CreateStoreOptions): Keyv {
  return open({ ...options, isHeldOpen: false }).namespace(namespace);
}

function open({
  storeUrl,
  logger,
  redisConnectTimeoutMs = 5_000,
  operationTimeoutMs = 5_000,
  isHeldOpen,
}: OpenStoreOptions & {
  /** True: the store keeps the connection open between namespaces until close(); false: its one namespace owns it. */
  isHeldOpen: boolean;
}): Store {
  const location = parseStoreUrl({ storeUrl });
  const redactedStoreUrl = redactStoreUrl(storeUrl);
  const redis =
    location.kind === 'redis'
      ? openRedisConnection({ url: location.url, connectTimeoutMs: redisConnectTimeoutMs })
      : undefined;
  if (redis)
    logStoreErrors({ emitter: redis.connector, logger, redactedStoreUrl, namespace: '(connection)' });
  const opened: Keyv[] = [];
  const timeBound = createStoreTimeBound({ timeoutMs: operationTimeoutMs });
  if (isHeldOpen) redis?.take();
  let isClosed = false;
  return {
    kind: location.kind,
    isShared: location.kind === 'redis',
    namespace(name) {
      if (name === '' || name.includes(':')) {
        throw new Error(`A store namespace must be non-empty and contain no ":"; got "${name}"`);
      }
      const keyv = new Keyv({
        store: openAdapter({ location, redis, timeBound }),
        namespace: name,
        // SqliteStore and @keyv/redis prefix keys with the namespace themselves (a memory Map belongs to one
        // store alone). keyv's own prefixing would double that, and it leaves a key that already starts
        // with "namespace:" unprefixed, so key "history:x" would collide with key "x".
        useKeyPrefix: false,
        throwOnErrors: true,
      });
      logStoreErrors({ emitter: keyv, logger, redactedStoreUrl, namespace: name });
      opened.push(keyv);
      return timeStoreCalls({ keyv, backend: location.kind });
    },
    redisClient: async () => redis?.connect(),
    bound: (operation, call, options) => timeBound.bound(operation, call, options),
    dropExpired: () => dropExpired({ location, opened, timeBound }),
    async reclaimSpace() {
      if (location.kind !== 'sqlite') return undefined;
      // One more user of the file's shared connection, for this call only.
      const maintenance = new SqliteStore({ filePath: location.filePath });
      try {
        return maintenance.reclaimSpace();
      } finally {
        await maintenance.disconnect();
      }
    },
    async close() {
      if (isClosed) return;
      isClosed = true;
      await Promise.allSettled(opened.map((keyv) => keyv.disconnect()));
      await redis?.release();
    },
  };
}

async function dropExpired({
  location,
  opened,
  timeBound,
}: {
  location: StoreLocation;
  opened: readonly Keyv[];
  timeBound: StoreTimeBound;
}): Promise<number> {
  switch (location.kind) {
    case 'redis':
      return 0;
    case 'sqlite': {
      const maintenance = new SqliteStore({ filePath: location.filePath, isDroppingExpiredOnOpen: false });
      try {
        return maintenance.deleteExpired();
      } finally {
        await maintenance.disconnect();
      }
    }
    case 'postgres': {
      const maintenance = new (postgresDriver().PostgresStore)({ url: location.url });
      try {
        return await timeBound.bound('deleteExpired', () => maintenance.deleteExpired(Date.now()));
      } finally {
        await maintenance.disconnect();
      }
    }
    case 'memory': {
      // Each namespace is a Map of its own; keyv's walk deletes the expired entries it meets.
      let count = 0;
      for (const keyv of opened) {
        const before = (keyv.store as Map<string, unknown>).size;
        for await (const _ of keyv.iterator?.(undefined) ?? []) {
          // Walking is the point: keyv deletes each expired entry as it passes it.
        }
        count += before - (keyv.store as Map<string, unknown>).size;
      }
      return count;
    }
  }
}

/** The Redis client under a store opened on a `redis://` URL, connected (undefined for other stores). */
export async function redisClientOf(keyv: Keyv): Promise<RedisClientType | undefined> {
  const adapter = keyv.store as { getClient?: () => Promise<unknown> };
  if (typeof adapter.getClient !== 'function') return undefined;
  return (await adapter.getClient()) as RedisClientType;
}

/** One Redis client shared by every namespace: connected once, closed with its last user. */
interface RedisConnection {
  readonly client: RedisClientType;
  /** Connects the client, and reports what goes wrong while it does. */
  readonly connector: KeyvRedis<unknown>;
  /** The client, connected; operations that arrive while it connects wait for that same attempt. */
  connect(): Promise<RedisClientType>;
  take(): void;
  release(): Promise<void>;
}

function openRedisConnection({
  url,
  connectTimeoutMs,
}: {
  url: string;
  connectTimeoutMs: number;
}): RedisConnection {
  const { default: KeyvRedis, defaultReconnectStrategy } = redisDriver();
  // This adapter only connects the client; each namespace gets its own adapter on the same client.
  const connector = new KeyvRedis(
    {
      url,
      // Without this, commands issued while the connection is down wait in a queue until Redis is
      // back, and a user's turn hangs instead of failing with a message.
      disableOfflineQueue: true,
      socket: { reconnectStrategy: defaultReconnectStrategy },
    },
    // Without connectionTimeout the first operation against an unreachable Redis never settles.
    { throwOnErrors: true, connectionTimeout: connectTimeoutMs },
  );
  const client = connector.client as RedisClientType;
  // @keyv/redis connects on the first operation, and a second operation started meanwhile finds the
  // client open but not ready; with the offline queue off it would fail with "The client is offline".
  let connecting: Promise<RedisClientType> | undefined;
  let users = 0;
  return {
    client,
    connector,
    connect() {
      connecting ??= (connector.getClient() as Promise<RedisClientType>).finally(() => {
        connecting = undefined;
      });
      return connecting;
    },
    take() {
      users += 1;
    },
    async release() {
      users -= 1;
      if (users === 0) await connector.disconnect();
    },
  };
}

function openAdapter({
  location,
  redis,
  timeBound,
}: {
  location: StoreLocation;
  redis: RedisConnection | undefined;
  timeBound: StoreTimeBound;
}): KeyvStoreAdapter | Map<string, unknown> {
  switch (location.kind) {
    case 'memory':
      return new Map<string, unknown>();
    case 'sqlite':
      // Every SqliteStore on one file shares one connection (sqlite-database.ts).
      return new SqliteStore({ filePath: location.filePath });
    case 'postgres':
      return boundStoreTime(new (postgresDriver().PostgresStore)({ url: location.url }), timeBound);
    case 'redis': {
      if (!redis) throw new Error('a redis:// store without its connection');
      return boundStoreTime(namespaceOnConnection(redis), timeBound);
    }
  }
}

/**
 * A namespace's adapter on the shared client. It does not forward the client's events (the
 * connection reports them once, and N namespaces would add N listeners to one client); it connects
 * through the connection, and its disconnect gives up its share instead of closing the client under
 * the other namespaces.
 */
let namespaceAdapterClass: typeof KeyvRedis<unknown> | undefined;

function namespaceAdapterOf(): typeof KeyvRedis<unknown> {
  if (namespaceAdapterClass === undefined) {
    const NamespaceAdapter = class extends redisDriver().default<unknown> {};
    // initClient is private in the library's types; the constructor calls it to attach the listeners.
    Object.defineProperty(NamespaceAdapter.prototype, 'initClient', { value: () => {} });
    namespaceAdapterClass = NamespaceAdapter;
  }
  return namespaceAdapterClass;
}

function namespaceOnConnection(redis: RedisConnection): KeyvRedis<unknown> {
  const NamespaceAdapter = namespaceAdapterOf();
  const adapter = new NamespaceAdapter(redis.client, { throwOnErrors: true });
  redis.take();
  let hasReleased = false;
  adapter.getClient = () => redis.connect();
  adapter.disconnect = async () => {
    if (hasReleased) return;
    hasReleased = true;
    await redis.release();
  };
  return adapter;
}

function logStoreErrors({
  emitter,
  logger,
  redactedStoreUrl,
  namespace,
}: {
  emitter: { on(event: 'error', listener: (error: unknown) => void): unknown };
  logger: Logger;
  redactedStoreUrl: string;
  /** Unset for the connection itself, which every namespace shares. */
  namespace?: string;
}): void {
  const lastLoggedAtMsByMessage = new Map<string, number>();
  emitter.on('error', (error: unknown) => {
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
