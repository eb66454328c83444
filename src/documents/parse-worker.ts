import { parentPort } from 'node:worker_threads';
import type { ReadLimits } from './extracted-document.ts';
import { readDocument } from './read-document.ts';
import { ReadProblem } from './readers/read-problem.ts';

/** What the main thread sends the worker: one file to read. */
export interface ParseRequest {
  readonly bytes: Uint8Array;
  readonly name: string;
  readonly mimeType?: string;
  readonly limits: ReadLimits;
}

// One file per worker: the worker is ended after it answers, so a hostile file's leftovers go with it.
parentPort?.once('message', (request: ParseRequest) => {
  readDocument(request).then(
    (document) => parentPort?.postMessage({ isRead: true, document }),
    (error: unknown) =>
      parentPort?.postMessage({
        isRead: false,
        reason: error instanceof ReadProblem ? error.reason : 'damaged',
        detail: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
      }),
  );
});
