import { createHash } from 'node:crypto';
import type { Keyv } from 'keyv';
import { z } from 'zod';
import { type ContentRemoval, createContentAddressedStore } from '../state/content-addressed-store.ts';
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
  /** Removes the named images and those unused since a time (retention, /forget); resolves with how many. */
  remove(request: ContentRemoval): Promise<number>;
}

/**
 * Keeps images in `store` (keyv) through a content-addressed store (state/content-addressed-store.ts),
 * base64 with their type, under `image:<hash>`.
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
  const kept = createContentAddressedStore({ store, kind: 'image', maxTotalBytes, lifetimeMs, now });
  return {
    async keep({ bytes, mimeType }) {
      const imageHash = createHash('sha256').update(bytes).digest('hex');
      await kept.keep({
        hash: imageHash,
        encode: () => {
          const base64 = Buffer.from(bytes).toString('base64');
          return { value: { mimeType, base64 }, storedBytes: base64.length };
        },
      });
      return { imageHash };
    },
    async load({ imageHash }) {
      const stored = (await kept.load(imageHash)) as { base64?: unknown } | undefined;
      if (typeof stored?.base64 !== 'string') return undefined;
      const bytes = new Uint8Array(Buffer.from(stored.base64, 'base64'));
      const mimeType = detectImageType(bytes);
      return mimeType ? { bytes, mimeType } : undefined;
    },
    totalStoredBytes: () => kept.totalStoredBytes(),
    remove: (request) => kept.remove(request),
  };
}
