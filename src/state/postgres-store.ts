import KeyvPostgres from '@keyv/postgres';
import type { KeyvEntry } from 'keyv';

/** The one table every namespace shares; each key starts with its namespace. */
export const postgresTableName = 'parley_store';

/**
 * @keyv/postgres with each key written as `namespace:key`, like SqliteStore and @keyv/redis do.
 * keyv's own prefixing is off in createStore (it leaves a key that already starts with
 * "namespace:" unprefixed, so two keys could meet), so the adapter does it; `clear()` of
 * @keyv/postgres already deletes only `namespace:%`.
 */
export class PostgresStore extends KeyvPostgres {
  /** Stores open in this process: @keyv/postgres keeps one pg pool for all of them. */
  private static openCount = 0;
  private isOpen = true;

  constructor({ url }: { url: string }) {
    // A few connections are enough for a bot (every call is one short statement) and leave room for
    // several processes on one server.
    // iterationLimit: rows per page of a namespace walk (the retention sweep); the library's 10 would
    // make a walk of a large history one round trip per ten turns.
    super({ uri: url, table: postgresTableName, max: 5, iterationLimit: 500 });
    PostgresStore.openCount += 1;
  }

  /** @keyv/postgres ends the shared pool on any disconnect; only the last store to close may. */
  override async disconnect(): Promise<void> {
    if (!this.isOpen) return;
    this.isOpen = false;
    PostgresStore.openCount -= 1;
    if (PostgresStore.openCount === 0) await super.disconnect();
  }

  private keyOf(key: string): string {
    return this.namespace ? `${this.namespace}:${key}` : key;
  }

  override get(key: string) {
    return super.get(this.keyOf(key));
  }

  override getMany(keys: string[]) {
    return super.getMany(keys.map((key) => this.keyOf(key)));
  }

  override set(key: string, value: unknown) {
    return super.set(this.keyOf(key), value);
  }

  override setMany(entries: KeyvEntry[]) {
    return super.setMany(entries.map((entry) => ({ ...entry, key: this.keyOf(entry.key) })));
  }

  override delete(key: string) {
    return super.delete(this.keyOf(key));
  }

  override deleteMany(keys: string[]) {
    return super.deleteMany(keys.map((key) => this.keyOf(key)));
  }

  override has(key: string) {
    return super.has(this.keyOf(key));
  }

  /**
   * The library yields keys with their `namespace:` prefix, which keyv (its own prefixing off) would
   * hand on as they are; a caller that deletes what it walked would then miss the row.
   */
  override async *iterator(namespace?: string): AsyncGenerator<string[], void, unknown> {
    const prefix = namespace ? `${namespace}:` : '';
    for await (const [key = '', value = ''] of super.iterator(namespace)) {
      yield [key.startsWith(prefix) ? key.slice(prefix.length) : key, value];
    }
  }

  /**
   * Deletes every row of every namespace whose time to live has passed, in one statement. The table
   * has no expiry column: keyv writes `{"value":…,"expires":<ms>}`, with `expires` last, so the
   * expiry is the number at the very end of the text (a nested "expires" is never at the end).
   */
  async deleteExpired(nowMs: number): Promise<number> {
    const rows = (await this.query(
      `DELETE FROM ${postgresTableName}
        WHERE value ~ '"expires":[0-9]+}$'
          AND substring(value from '"expires":([0-9]+)}$')::bigint < $1
        RETURNING key`,
      [nowMs],
    )) as unknown[];
    return rows.length;
  }
}
