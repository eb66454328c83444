import type { DocumentStore } from '../documents/document-store.ts';
import type { KeptData } from './kept-data.ts';

/**
 * Text extracted from documents, kept once by file hash and shared by every conversation that
 * read the file: the sweep removes what no place has used within the strictest retention, /forget
 * the documents of the person's forgotten turns, /export gives their text.
 */
export function documentKeptData({ documents }: { documents: DocumentStore }): KeptData {
  return {
    name: 'documents',
    async sweep({ sharedCutoffMs }) {
      return sharedCutoffMs === undefined ? 0 : documents.remove({ usedBeforeMs: sharedCutoffMs });
    },
    async forget({ forgottenTurns }) {
      const hashes = forgottenTurns.flatMap((turn) =>
        (turn.documents ?? []).map((document) => document.documentHash),
      );
      return hashes.length === 0 ? 0 : documents.remove({ hashes: [...new Set(hashes)] });
    },
  };
}
