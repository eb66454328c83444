import type { Keyv } from 'keyv';
import { type ContentRemoval, createContentAddressedStore } from '../state/content-addressed-store.ts';
import { type ExtractedDocument, extractedDocumentSchema } from './extracted-document.ts';

/**
 * Text extracted from documents, kept once each by the hash of the file it came from, so a follow-up
 * question or Regenerate reads it again without downloading or parsing, and the history holds only
 * references. Lives `lifetimeMs` past its last use; past `maxTotalBytes` the least recently used go.
 */
export interface DocumentStore {
  keep(documentHash: string, document: ExtractedDocument): Promise<void>;
  /** The document, or undefined when it expired or was evicted. */
  load(documentHash: string): Promise<ExtractedDocument | undefined>;
  /** Removes the named documents and those unused since a time (retention, /forget); resolves with how many. */
  remove(request: ContentRemoval): Promise<number>;
}

export function createDocumentStore({
  store,
  maxTotalBytes,
  lifetimeMs,
  now,
}: {
  store: Keyv;
  maxTotalBytes: number;
  lifetimeMs: number;
  now?: () => number;
}): DocumentStore {
  const kept = createContentAddressedStore({
    store,
    kind: 'document',
    maxTotalBytes,
    lifetimeMs,
    ...(now ? { now } : {}),
  });
  return {
    keep: (documentHash, document) =>
      kept.keep({
        hash: documentHash,
        encode: () => ({ value: document, storedBytes: JSON.stringify(document).length }),
      }),
    async load(documentHash) {
      const parsed = extractedDocumentSchema.safeParse(await kept.load(documentHash));
      return parsed.success ? parsed.data : undefined;
    },
    remove: (request) => kept.remove(request),
  };
}
