/**
 * Parsed spend records kept in the process, each until the moment its stored copy expires, at most
 * `maxRecords` of them: the least recently used go first, so memory stays flat however many people
 * write. It only remembers; keyv-spend-store.ts decides when a record may be put in (see there).
 */
export interface SpendRecordCache<Value> {
  /** The record, or undefined when it is not kept or its time is up (then it is dropped). */
  get(key: string, nowMs: number): Value | undefined;
  /** Keeps `value` until `expiresAtMs` (forever when undefined: the stored copy has no end either). */
  set(key: string, value: Value, expiresAtMs: number | undefined): void;
  delete(key: string): void;
  readonly size: number;
}

interface CachedRecord<Value> {
  readonly value: Value;
  readonly expiresAtMs: number | undefined;
}

export function createSpendRecordCache<Value>({
  maxRecords,
}: {
  maxRecords: number;
}): SpendRecordCache<Value> {
  // A Map iterates in insertion order: re-inserting a record on every use keeps the least recently
  // used at the front, where eviction takes it.
  const records = new Map<string, CachedRecord<Value>>();
  return {
    get(key, nowMs) {
      const cached = records.get(key);
      if (cached === undefined) return undefined;
      records.delete(key);
      // At the expiry itself the record counts as gone: the cached copy never outlives the stored one.
      if (cached.expiresAtMs !== undefined && nowMs >= cached.expiresAtMs) return undefined;
      records.set(key, cached);
      return cached.value;
    },
    set(key, value, expiresAtMs) {
      records.delete(key);
      records.set(key, { value, expiresAtMs });
      while (records.size > maxRecords) {
        const oldest = records.keys().next().value;
        if (oldest === undefined) break;
        records.delete(oldest);
      }
    },
    delete(key) {
      records.delete(key);
    },
    get size() {
      return records.size;
    },
  };
}
