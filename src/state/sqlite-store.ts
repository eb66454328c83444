import { EventEmitter } from 'node:events';
import type { SQLOutputValue } from 'node:sqlite';
import type { KeyvStoreAdapter, StoredData } from 'keyv';
import {
  inMemorySqliteFilePath,
  openSqliteDatabase,
  type SpaceReclaimed,
  type SqliteDatabase,
} from './sqlite-database.ts';

export { inMemorySqliteFilePath, type SpaceReclaimed };

const namespaceSeparator = ':';

export interface SqliteStoreOptions {
  /** Path of the database file; its folder is created when missing. `:memory:` keeps it in memory. */
  readonly filePath: string;
  /** How long a write waits for another connection (another bot process) to release the file. */
  readonly busyTimeoutMs?: number;
  /** Drop expired rows on opening (default); the retention sweep opens one to count them itself. */
  readonly isDroppingExpiredOnOpen?: boolean;
}

interface StoredRow {
  readonly key: string;
  readonly value: string;
  readonly expiresAtMs: number | null;
}

/**
 * A keyv store adapter on Node's built-in SQLite: one table of serialized values with an optional
 * expiry time, so conversation history survives a restart without a server or a native module.
 *
 * Namespaces work like @keyv/redis: pair it with `new Keyv({ store, namespace, useKeyPrefix: false })`
 * and the adapter stores `namespace:key` itself, so `clear()` removes only its own namespace and a
 * key that happens to start with the namespace is never mistaken for an already prefixed one.
 * With keyv's default `useKeyPrefix: true` it still works; keys are then prefixed twice.
 */
export class SqliteStore extends EventEmitter implements KeyvStoreAdapter {
  /** keyv reads `dialect` to know that this adapter can iterate. */
  readonly opts: { readonly dialect: 'sqlite'; readonly url: string; readonly filePath: string };
  readonly #database: SqliteDatabase;
  readonly #stopListening: () => void;
  #namespace: string | undefined;
  #isOpen = true;

  constructor({ filePath, busyTimeoutMs = 5_000, isDroppingExpiredOnOpen = true }: SqliteStoreOptions) {
    super();
    this.opts = { dialect: 'sqlite', url: `sqlite://${filePath}`, filePath };
    this.#database = openSqliteDatabase({ filePath, busyTimeoutMs });
    // keyv logs what an adapter emits as 'error'; a restored or replaced file is worth that line.
    this.#stopListening = this.#database.onFileTrouble((description) => {
      if (this.listenerCount('error') > 0) this.emit('error', new Error(description));
    });
    // Expired rows nobody reads again would otherwise stay forever; a restart is a cheap moment to drop them.
    if (isDroppingExpiredOnOpen) this.deleteExpired();
  }

  /** Set by keyv from its own `namespace` option. */
  get namespace(): string | undefined {
    return this.#namespace;
  }

  set namespace(namespace: string | undefined) {
    // With a separator inside a namespace, namespace "a" key "b:c" and namespace "a:b" key "c" collide.
    if (namespace?.includes(namespaceSeparator)) {
      throw new Error(`A store namespace must not contain "${namespaceSeparator}": "${namespace}"`);
    }
    this.#namespace = namespace === '' ? undefined : namespace;
  }

  async get<Value>(key: string): Promise<StoredData<Value> | undefined> {
    const row = this.#readLiveRow(this.#storageKey(key));
    // keyv hands the adapter serialized strings and deserializes what comes back itself.
    return row?.value as StoredData<Value> | undefined;
  }

  /** Many keys in one call: keyv would otherwise make one awaited `get` per key. */
  async getMany<Value>(keys: string[]): Promise<Array<StoredData<Value | undefined>>> {
    return keys.map(
      (key) => this.#readLiveRow(this.#storageKey(key))?.value as StoredData<Value | undefined>,
    );
  }

  async set(key: string, value: unknown, ttl?: number): Promise<boolean> {
    if (typeof value !== 'string') {
      throw new TypeError("SqliteStore stores keyv's serialized strings; keep keyv's default serialize");
    }
    const expiresAtMs = typeof ttl === 'number' && Number.isFinite(ttl) && ttl > 0 ? Date.now() + ttl : null;
    this.#assertOpen();
    const storageKey = this.#storageKey(key);
    await this.#database.write((statements) => statements.upsert.run(storageKey, value, expiresAtMs));
    return true;
  }

  /**
   * Many entries in one write (one transaction): keyv would otherwise make one `set` per entry. A
   * reply's spending is one such write (keyv-spend-store.ts).
   */
  async setMany(entries: Array<{ key: string; value: unknown; ttl?: number }>): Promise<void> {
    const nowMs = Date.now();
    const rows = entries.map(({ key, value, ttl }) => {
      if (typeof value !== 'string') {
        throw new TypeError("SqliteStore stores keyv's serialized strings; keep keyv's default serialize");
      }
      const expiresAtMs = typeof ttl === 'number' && Number.isFinite(ttl) && ttl > 0 ? nowMs + ttl : null;
      return { storageKey: this.#storageKey(key), value, expiresAtMs };
    });
    this.#assertOpen();
    await this.#database.write((statements) => {
      for (const row of rows) statements.upsert.run(row.storageKey, row.value, row.expiresAtMs);
    });
  }

  async delete(key: string): Promise<boolean> {
    this.#assertOpen();
    const storageKey = this.#storageKey(key);
    const changes = await this.#database.write((statements) => statements.delete.run(storageKey).changes);
    return Number(changes) > 0;
  }

  async has(key: string): Promise<boolean> {
    return this.#readLiveRow(this.#storageKey(key)) !== undefined;
  }

  /** Removes every entry of this store's namespace, or every entry when it has no namespace. */
  async clear(): Promise<void> {
    this.#assertOpen();
    const range = this.#namespaceRange(this.#namespace);
    await this.#database.write((statements) => {
      if (range === undefined) statements.deleteAll.run();
      else statements.deleteRange.run(range.fromKey, range.toKey);
    });
  }

  /** Yields `[key, serialized value]` for the live entries of a namespace, keys without the prefix. */
  async *iterator<Value>(
    namespace?: string,
  ): AsyncGenerator<Array<string | Awaited<Value> | undefined>, void> {
    this.#assertOpen();
    const effectiveNamespace = namespace || this.#namespace;
    const range = this.#namespaceRange(effectiveNamespace);
    // A snapshot, because other writes on this connection may run between two yields.
    const rawRows =
      range === undefined
        ? this.#statements().selectAll.all()
        : this.#statements().selectRange.all(range.fromKey, range.toKey);
    const nowMs = Date.now();
    const prefixLength = effectiveNamespace ? effectiveNamespace.length + namespaceSeparator.length : 0;
    for (const rawRow of rawRows) {
      const row = toStoredRow(rawRow);
      if (isExpired({ row, nowMs })) continue;
      yield [row.key.slice(prefixLength), row.value as Awaited<Value>];
    }
  }

  /** Deletes every expired row of every namespace and returns how many went. */
  deleteExpired(): number {
    this.#assertOpen();
    return Number(this.#statements().deleteAllExpired.run(Date.now()).changes);
  }

  /** Gives freed pages back to the file system (see SqliteDatabase.reclaimSpace). */
  reclaimSpace(): SpaceReclaimed {
    this.#assertWritable();
    return this.#database.reclaimSpace();
  }

  /** Closes the database; later calls fail. Closing twice is harmless. */
  async disconnect(): Promise<void> {
    if (!this.#isOpen) return;
    this.#isOpen = false;
    this.#stopListening();
    this.#database.release();
  }

  #readLiveRow(storageKey: string): StoredRow | undefined {
    this.#assertOpen();
    const rawRow = this.#statements().select.get(storageKey);
    if (rawRow === undefined) return undefined;
    const row = toStoredRow(rawRow);
    const nowMs = Date.now();
    if (!isExpired({ row, nowMs })) return row;
    // Conditional, so a fresh value another connection wrote since the read is not thrown away.
    this.#statements().deleteIfExpired.run(storageKey, nowMs);
    return undefined;
  }

  #storageKey(key: string): string {
    return this.#namespace ? `${this.#namespace}${namespaceSeparator}${key}` : key;
  }

  /**
   * Every key of a namespace starts with `namespace:`; in SQLite's binary order those keys are exactly
   * the ones from `namespace:` up to (not including) `namespace;`, the next character after ':'.
   * A range uses the primary key index and, unlike LIKE, has no wildcards to escape.
   */
  #namespaceRange(namespace: string | undefined): { fromKey: string; toKey: string } | undefined {
    if (!namespace) return undefined;
    const nextCharacter = String.fromCharCode(namespaceSeparator.charCodeAt(0) + 1);
    return { fromKey: `${namespace}${namespaceSeparator}`, toKey: `${namespace}${nextCharacter}` };
  }

  #statements() {
    return this.#database.statements();
  }

  #assertOpen(): void {
    if (!this.#isOpen) throw new Error(`The SQLite store ${this.opts.filePath} is closed`);
  }

  /** Before a write: the file must still be the one on disk, or the write would go nowhere. */
  #assertWritable(): void {
    this.#assertOpen();
    this.#database.ensureFile();
  }
}

function toStoredRow(rawRow: Record<string, SQLOutputValue>): StoredRow {
  const { key, value, expires } = rawRow;
  if (typeof key !== 'string' || typeof value !== 'string') {
    throw new Error('The SQLite store holds a row that is not text; was the file written by something else?');
  }
  return { key, value, expiresAtMs: expires === null || expires === undefined ? null : Number(expires) };
}

// Same rule as keyv's own check (`Date.now() > expires`), so both agree on the boundary millisecond.
function isExpired({ row, nowMs }: { row: StoredRow; nowMs: number }): boolean {
  return row.expiresAtMs !== null && nowMs > row.expiresAtMs;
}
