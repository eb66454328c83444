import { Worker } from 'node:worker_threads';
import { type ExtractedDocument, extractedDocumentSchema } from './extracted-document.ts';
import type { ParseRequest } from './parse-worker.ts';
import type { ReadProblemReason } from './readers/read-problem.ts';

/** How much time and memory one parse may take; past either, the worker is ended. */
export interface WorkerLimits {
  readonly timeoutMs: number;
  /** V8 heap of the worker (old generation), in MB. */
  readonly maxHeapMb: number;
}

export type ParseOutcome =
  | { readonly isRead: true; readonly document: ExtractedDocument }
  | { readonly isRead: false; readonly reason: ReadProblemReason; readonly detail: string };

const workerUrl = new URL('./parse-worker.ts', import.meta.url);

/**
 * Reads a file on a worker thread with a heap limit (`resourceLimits`) and a deadline, so a hostile
 * file (a PDF that takes minutes, a zip bomb that slips past the size checks) costs one worker, never
 * the bot's event loop: other conversations are answered meanwhile. Never rejects.
 */
export function parseInWorker({
  request,
  limits,
  onStarted,
}: {
  request: ParseRequest;
  limits: WorkerLimits;
  /** Given the worker once it runs (the benchmark samples its heap). */
  onStarted?: (worker: Worker) => void;
}): Promise<ParseOutcome> {
  return new Promise((resolve) => {
    let isSettled = false;
    const worker = new Worker(workerUrl, {
      resourceLimits: {
        maxOldGenerationSizeMb: limits.maxHeapMb,
        maxYoungGenerationSizeMb: 32,
        stackSizeMb: 4,
      },
      stdout: true,
      stderr: true,
    });
    const settle = (outcome: ParseOutcome) => {
      if (isSettled) return;
      isSettled = true;
      clearTimeout(timer);
      resolve(outcome);
      void worker.terminate();
    };
    const timer = setTimeout(
      () => settle({ isRead: false, reason: 'too-slow', detail: `no result within ${limits.timeoutMs} ms` }),
      limits.timeoutMs,
    );
    worker.once('message', (message: unknown) => settle(toOutcome(message)));
    worker.once('error', (error: Error & { code?: string }) =>
      settle({
        isRead: false,
        reason: error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'too-much-memory' : 'damaged',
        detail: `${error.code ?? error.name}: ${error.message}`,
      }),
    );
    worker.once('exit', (code) =>
      settle({ isRead: false, reason: 'damaged', detail: `worker exited with ${code}` }),
    );
    const bytes = new Uint8Array(request.bytes);
    worker.postMessage({ ...request, bytes }, [bytes.buffer]);
    onStarted?.(worker);
  });
}

function toOutcome(message: unknown): ParseOutcome {
  const reply = message as {
    isRead?: boolean;
    document?: unknown;
    reason?: ReadProblemReason;
    detail?: string;
  };
  if (reply.isRead) {
    const parsed = extractedDocumentSchema.safeParse(reply.document);
    if (parsed.success) return { isRead: true, document: parsed.data };
    return { isRead: false, reason: 'damaged', detail: 'worker sent a malformed document' };
  }
  return { isRead: false, reason: reply.reason ?? 'damaged', detail: reply.detail ?? 'unknown' };
}
