import type { Keyv } from 'keyv';
import { z } from 'zod';
import { createInProcessLock } from './keyed-lock.ts';

/**
 * Values kept once each under the hash of their content (images for buttons, text extracted from
 * documents), so ten turns about one file keep it once. Each copy outlives the newest use that kept
 * it (`lifetimeMs`); past `maxTotalBytes` the least recently used go first.
 */
export interface ContentAddressedStore {
  /**
   * Keeps the value named `hash`, or refreshes the copy already kept. `encode` is called only when
   * the value must be written, so a copy written recently costs no encoding.
   */
  keep(entry: { hash: string; encode: () => { value: unknown; storedBytes: number } }): Promise<void>;
  /** The stored value, or undefined when it expired or was evicted. */
  load(hash: string): Promise<unknown>;
  /** Bytes the kept values take, as their `encode` counted them. */
  totalStoredBytes(): Promise<number>;
  /**
   * Removes the named values (/forget) and those no use kept since `usedBeforeMs` (the retention
   * sweep); resolves with how many went.
   */
  remove(request: ContentRemoval): Promise<number>;
}

/** Which kept values to remove: by name, by age, or both. */
export interface ContentRemoval {
  readonly hashes?: readonly string[];
  /** Values whose newest use is older than this (ms since the epoch) go. */
  readonly usedBeforeMs?: number;
}

const indexSchema = z.object({
  entries: z.array(
    z.object({
      /** Named `imageHash` since the first user of this store kept images; it is any content hash. */
      imageHash: z.string(),
      storedBytes: z.number(),
      /** When its value was last written, which set its time to live. */
      writtenAtMs: z.number(),
      /** When a use last kept it: the eviction order. */
      usedAtMs: z.number(),
    }),
  ),
});
type StoreIndex = z.infer<typeof indexSchema>;
type IndexEntry = StoreIndex['entries'][number];

/**
 * A copy lives this much longer than its use, and is written again only when older than this: three
 * uses of one value within a day write it once, and a copy always outlives the uses that kept it.
 */
const rewriteAfterMs = 24 * 60 * 60 * 1000;

/**
 * Keeps values in `store` (keyv) under `<kind>:<hash>` beside a small index `<kind>-index` of hashes,
 * sizes and times, which is what lets the total be capped: keyv cannot list its keys on every
 * backend. The index is updated under an in-process lock; several processes sharing one Redis may
 * each evict a little late, never early.
 */
export function createContentAddressedStore({
  store,
  kind,
  maxTotalBytes,
  lifetimeMs,
  now = () => Date.now(),
}: {
  store: Keyv;
  /** Names the keys: `image` keeps `image:<hash>` and `image-index`. */
  kind: string;
  maxTotalBytes: number;
  lifetimeMs: number;
  now?: () => number;
}): ContentAddressedStore {
  const lock = createInProcessLock();
  const indexKey = `${kind}-index`;
  const valueKeyOf = (hash: string) => `${kind}:${hash}`;
  const readIndex = async (): Promise<StoreIndex> => {
    const parsed = indexSchema.safeParse(await store.get(indexKey));
    return parsed.success ? parsed.data : { entries: [] };
  };
  return {
    keep: ({ hash, encode }) =>
      lock.run(indexKey, async () => {
        const nowMs = now();
        const index = await readIndex();
        const isLive = (entry: IndexEntry) => entry.writtenAtMs + lifetimeMs + rewriteAfterMs > nowMs;
        const known = index.entries.find((entry) => entry.imageHash === hash && isLive(entry));
        const entries = index.entries.filter((entry) => entry.imageHash !== hash && isLive(entry));
        const expired = index.entries.filter((entry) => entry.imageHash !== hash && !isLive(entry));
        if (known && known.writtenAtMs + rewriteAfterMs > nowMs) {
          entries.push({ ...known, usedAtMs: nowMs });
        } else {
          const { value, storedBytes } = encode();
          await store.set(valueKeyOf(hash), value, lifetimeMs + rewriteAfterMs);
          entries.push({ imageHash: hash, storedBytes, writtenAtMs: nowMs, usedAtMs: nowMs });
        }
        const evicted = evictOldest(entries, maxTotalBytes);
        // Expired copies are deleted too: a file store keeps an expired value until it is read.
        await Promise.all([...expired, ...evicted].map((entry) => store.delete(valueKeyOf(entry.imageHash))));
        await store.set(indexKey, { entries }, lifetimeMs + rewriteAfterMs);
      }),
    load: (hash) => store.get(valueKeyOf(hash)),
    remove: ({ hashes = [], usedBeforeMs }) =>
      lock.run(indexKey, async () => {
        const named = new Set(hashes);
        const index = await readIndex();
        const isRemoved = (entry: IndexEntry) =>
          named.has(entry.imageHash) || (usedBeforeMs !== undefined && entry.usedAtMs < usedBeforeMs);
        const removed = index.entries.filter(isRemoved);
        // A named value the index no longer lists may still be on disk until its time to live ends.
        const unlisted = [...named].filter(
          (hash) => !index.entries.some((entry) => entry.imageHash === hash),
        );
        await Promise.all(
          [...removed.map((entry) => entry.imageHash), ...unlisted].map((hash) =>
            store.delete(valueKeyOf(hash)),
          ),
        );
        if (removed.length > 0) {
          await store.set(
            indexKey,
            { entries: index.entries.filter((entry) => !isRemoved(entry)) },
            lifetimeMs + rewriteAfterMs,
          );
        }
        return removed.length;
      }),
    async totalStoredBytes() {
      return (await readIndex()).entries.reduce((total, entry) => total + entry.storedBytes, 0);
    },
  };
}

// Removes the oldest entries (in place) until the total fits; the newest always stays.
function evictOldest(entries: IndexEntry[], maxTotalBytes: number): IndexEntry[] {
  entries.sort((left, right) => left.usedAtMs - right.usedAtMs);
  const evicted: IndexEntry[] = [];
  let total = entries.reduce((sum, entry) => sum + entry.storedBytes, 0);
  while (total > maxTotalBytes && entries.length > 1) {
    const oldest = entries.shift();
    if (!oldest) break;
    total -= oldest.storedBytes;
    evicted.push(oldest);
  }
  return evicted;
}
