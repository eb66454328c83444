import type { DocumentStore } from '../documents/document-store.ts';
import type { KeptData } from './kept-data.ts';

/**
 * Text extracted from documents, kept once by file hash and shared by every conversation that
 * read the file: the sweep removes what no place has used within the strictest retention. /forget
 * removes the documents of the person's forgotten turns that no one else's turn still cites (the
 * same file shared by someone else, anywhere, is theirs too); /export gives their text.
 */
export function documentKeptData({
  documents,
  citedHashes,
}: {
  documents: DocumentStore;
  /**
   * The hashes the turns kept now cite, read after the person's turns are gone: what is left is
   * everyone else's.
   */
  citedHashes: () => Promise<ReadonlySet<string>>;
}): KeptData {
  return {
    name: 'documents',
    async sweep({ sharedCutoffMs }) {
      return sharedCutoffMs === undefined ? 0 : documents.remove({ usedBeforeMs: sharedCutoffMs });
    },
    async forget({ forgottenTurns }) {
      const hashes = new Set(
        forgottenTurns.flatMap((turn) => (turn.documents ?? []).map((document) => document.documentHash)),
      );
      if (hashes.size === 0) return 0;
      const stillCited = await citedHashes();
      const unshared = [...hashes].filter((hash) => !stillCited.has(hash));
      return unshared.length === 0 ? 0 : documents.remove({ hashes: unshared });
    },
  };
}
