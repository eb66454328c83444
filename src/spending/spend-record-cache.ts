/**
 * Parsed spend records kept in the process, each until the moment its stored copy expires, at most
 * `maxRecords` of them: the least recently used go first, so memory stays flat however many people
 * write. It only remembers; keyv-spend-store.ts decides when a record may be put in (see there).
 */
export interface SpendRecordCache<Value> {
  /** The record, or undefined when it is not kept or its time is up (then it is dropped). */
  get(key: string, nowMs: number): Value | undefined;
  /**
   * Keeps `value`, just written, until `expiresAtMs` (forever when undefined: the stored copy has no
   * end either). A successful write also ends any doubt about the key (see `distrust`).
   */
  set(key: string, value: Value, expiresAtMs: number | undefined): void;
  /** Keeps `value`, just read from the store, unless the key's last write failed (see `distrust`). */
  fill(key: string, value: Value, expiresAtMs: number | undefined): void;
  /**
   * The key's last write failed: it may still land later (a store that timed out but wrote), so what
   * a read finds until the next successful write is not kept; each read asks the store again, as it
   * did before the cache, rather than keeping an older value that the next settle would build on and
   * write over the late one.
   */
  distrust(key: string): void;
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
  // Failed writes are rare; bounded all the same (forgetting a doubt only lets a read be kept again).
  const distrusted = new Set<string>();
  const keep = (key: string, value: Value, expiresAtMs: number | undefined) => {
    records.delete(key);
    records.set(key, { value, expiresAtMs });
    while (records.size > maxRecords) {
      const oldest = records.keys().next().value;
      if (oldest === undefined) break;
      records.delete(oldest);
    }
  };
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
      distrusted.delete(key);
      keep(key, value, expiresAtMs);
    },
    fill(key, value, expiresAtMs) {
      if (!distrusted.has(key)) keep(key, value, expiresAtMs);
    },
    distrust(key) {
      records.delete(key);
      distrusted.add(key);
      if (distrusted.size > maxRecords) {
        const oldest = distrusted.values().next().value;
        if (oldest !== undefined) distrusted.delete(oldest);
      }
    },
    get size() {
      return records.size;
    },
  };
}
