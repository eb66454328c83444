import { createHash } from 'node:crypto';
import type { Keyv } from 'keyv';
import { z } from 'zod';
import { createInProcessLock } from '../state/keyed-lock.ts';
import { detectImageType, type ImageMimeType } from './image-type.ts';

/** How a payload names a kept image: by the SHA-256 of its bytes. */
export const storedImageRefSchema = z.object({ imageHash: z.string().regex(/^[0-9a-f]{64}$/) });
export type StoredImageRef = z.infer<typeof storedImageRefSchema>;

/** A kept image. */
export interface KeptImage {
  readonly bytes: Uint8Array;
  readonly mimeType: ImageMimeType;
}

/**
 * One copy of each image that buttons need later (Regenerate of a turn with images, Vary), named by
 * its hash, so three turns with the same 3.6 MB screenshot keep it once. Each copy outlives the
 * newest button that uses it (`lifetimeMs`); past `maxTotalBytes` the least recently used go first,
 * and a button whose image is gone says so.
 */
export interface ImageStore {
  /** Keeps the image (or refreshes the copy already kept) and returns its reference. */
  keep(image: KeptImage): Promise<StoredImageRef>;
  /** The image, or undefined when it expired or was evicted. */
  load(ref: StoredImageRef): Promise<KeptImage | undefined>;
  /** Bytes the kept images take in the store (base64, as stored). */
  totalStoredBytes(): Promise<number>;
}

const indexSchema = z.object({
  entries: z.array(
    z.object({
      imageHash: z.string(),
      storedBytes: z.number(),
      /** When its bytes were last written, which set their time to live. */
      writtenAtMs: z.number(),
      /** When a button last kept it: the eviction order. */
      usedAtMs: z.number(),
    }),
  ),
});
type ImageIndex = z.infer<typeof indexSchema>;
type IndexEntry = ImageIndex['entries'][number];

const indexKey = 'image-index';

/**
 * A copy lives this much longer than a button, and is written again only when older than this: three
 * turns of one screenshot within a day write it once, and a copy always outlives its buttons.
 */
const rewriteAfterMs = 24 * 60 * 60 * 1000;
const imageKeyOf = (imageHash: string) => `image:${imageHash}`;

/**
 * Keeps images in `store` (keyv) beside a small index of hashes, sizes and times, which is what lets
 * the total be capped: keyv cannot list its keys on every backend. The index is updated under an
 * in-process lock; several processes sharing one Redis may each evict a little late, never early.
 */
export function createImageStore({
  store,
  maxTotalBytes,
  lifetimeMs,
  now = () => Date.now(),
}: {
  store: Keyv;
  maxTotalBytes: number;
  lifetimeMs: number;
  now?: () => number;
}): ImageStore {
  const lock = createInProcessLock();
  const readIndex = async (): Promise<ImageIndex> => {
    const parsed = indexSchema.safeParse(await store.get(indexKey));
    return parsed.success ? parsed.data : { entries: [] };
  };
  return {
    keep: ({ bytes, mimeType }) =>
      lock.run(indexKey, async () => {
        const imageHash = createHash('sha256').update(bytes).digest('hex');
        const nowMs = now();
        const index = await readIndex();
        const isLive = (entry: IndexEntry) => entry.writtenAtMs + lifetimeMs + rewriteAfterMs > nowMs;
        const known = index.entries.find((entry) => entry.imageHash === imageHash && isLive(entry));
        const entries = index.entries.filter((entry) => entry.imageHash !== imageHash && isLive(entry));
        const expired = index.entries.filter((entry) => entry.imageHash !== imageHash && !isLive(entry));
        if (known && known.writtenAtMs + rewriteAfterMs > nowMs) {
          entries.push({ ...known, usedAtMs: nowMs });
        } else {
          const base64 = Buffer.from(bytes).toString('base64');
          await store.set(imageKeyOf(imageHash), { mimeType, base64 }, lifetimeMs + rewriteAfterMs);
          entries.push({ imageHash, storedBytes: base64.length, writtenAtMs: nowMs, usedAtMs: nowMs });
        }
        const evicted = evictOldest(entries, maxTotalBytes);
        // Expired copies are deleted too: a file store keeps an expired value until it is read.
        await Promise.all([...expired, ...evicted].map((entry) => store.delete(imageKeyOf(entry.imageHash))));
        await store.set(indexKey, { entries }, lifetimeMs + rewriteAfterMs);
        return { imageHash };
      }),
    async load({ imageHash }) {
      const stored = (await store.get(imageKeyOf(imageHash))) as { base64?: unknown } | undefined;
      if (typeof stored?.base64 !== 'string') return undefined;
      const bytes = new Uint8Array(Buffer.from(stored.base64, 'base64'));
      const mimeType = detectImageType(bytes);
      return mimeType ? { bytes, mimeType } : undefined;
    },
    async totalStoredBytes() {
      return (await readIndex()).entries.reduce((total, entry) => total + entry.storedBytes, 0);
    },
  };
}

// Removes the oldest entries (in place) until the total fits; the newest always stays.
function evictOldest(entries: ImageIndex['entries'], maxTotalBytes: number): ImageIndex['entries'] {
  entries.sort((left, right) => left.usedAtMs - right.usedAtMs);
  const evicted: ImageIndex['entries'] = [];
  let total = entries.reduce((sum, entry) => sum + entry.storedBytes, 0);
  while (total > maxTotalBytes && entries.length > 1) {
    const oldest = entries.shift();
    if (!oldest) break;
    total -= oldest.storedBytes;
    evicted.push(oldest);
  }
  return evicted;
}
