import { createHash } from 'node:crypto';
import type { DocumentAttachment } from '../conversation/turn.ts';
import { formatSize } from '../format-size.ts';
import type { Logger } from '../log.ts';
import { UserFacingError } from '../user-facing-error.ts';
import type { DocumentStore } from './document-store.ts';
import type { ExtractedDocument, ReadLimits } from './extracted-document.ts';
import { parseInWorker, type WorkerLimits } from './parse-in-worker.ts';
import type { ReadProblemReason } from './readers/read-problem.ts';

/** A document read for a turn: its text and the hash it is kept under. */
export interface ReadDocument {
  readonly documentHash: string;
  readonly document: ExtractedDocument;
}

export type ReadResult = ReadDocument | { readonly problem: string };

/** Reads documents once: by hash from the store when seen before, else parsed on a worker and kept. */
export interface DocumentReader {
  read(attachment: DocumentAttachment): Promise<ReadResult>;
  /** A document kept earlier (a follow-up question about it), or undefined when it is gone. */
  load(documentHash: string): Promise<ExtractedDocument | undefined>;
}

export interface DocumentReaderOptions {
  readonly store: DocumentStore;
  /** Largest file read (`DOCUMENT_MAX_BYTES`). */
  readonly maxBytes: number;
  readonly readLimits: ReadLimits;
  readonly workerLimits: WorkerLimits;
  /** Parse workers running at once; more files wait, so a burst of uploads cannot exhaust memory. */
  readonly maxParallelParses?: number;
  readonly logger: Logger;
}

// Bumped when readers change what they extract, so kept text from an older reader is read again.
const readerVersion = 'documents-v1';

export function createDocumentReader(options: DocumentReaderOptions): DocumentReader {
  const slots = createSlots(options.maxParallelParses ?? 2);
  return {
    read: (attachment) => readAttachment({ options, slots, attachment }),
    load: (documentHash) => options.store.load(documentHash),
  };
}

async function readAttachment({
  options,
  slots,
  attachment,
}: {
  options: DocumentReaderOptions;
  slots: Slots;
  attachment: DocumentAttachment;
}): Promise<ReadResult> {
  if (attachment.keptHash) {
    const kept = await options.store.load(attachment.keptHash);
    if (kept) return { documentHash: attachment.keptHash, document: kept };
    return {
      problem: `${attachment.name} is no longer kept (documents are kept for 7 days), so please send it again.`,
    };
  }
  let bytes: Uint8Array;
  try {
    bytes = await attachment.load();
  } catch (error) {
    options.logger.warn({ err: error, document: attachment.name }, 'document could not be loaded');
    return {
      problem: UserFacingError.isInstance(error)
        ? error.userMessage
        : `I could not download ${attachment.name}, so I left it out.`,
    };
  }
  // Named after loading: a file found when it is loaded (Slack's most recent one) is known only then.
  const { name } = attachment;
  if (bytes.length > options.maxBytes) {
    return {
      problem: `${name} is ${formatSize(bytes.length)}, over the ${formatSize(options.maxBytes)} limit for documents, so I left it out.`,
    };
  }
  const documentHash = createHash('sha256').update(readerVersion).update(bytes).digest('hex');
  const kept = await options.store.load(documentHash).catch(() => undefined);
  if (kept) return { documentHash, document: { ...kept, name, ...sourceOf(attachment) } };
  const startedAtMs = performance.now();
  const outcome = await slots.run(() =>
    parseInWorker({
      request: {
        bytes,
        name,
        ...(attachment.mimeType ? { mimeType: attachment.mimeType } : {}),
        limits: options.readLimits,
      },
      limits: options.workerLimits,
    }),
  );
  const parseMs = Math.round(performance.now() - startedAtMs);
  if (!outcome.isRead) {
    options.logger.warn(
      { document: name, byteLength: bytes.length, reason: outcome.reason, detail: outcome.detail, parseMs },
      'document not read',
    );
    return { problem: problemMessage({ name, reason: outcome.reason, options }) };
  }
  const document = { ...outcome.document, ...sourceOf(attachment) };
  options.logger.info(
    {
      document: name,
      kind: document.kind,
      byteLength: bytes.length,
      sectionCount: document.sections.length,
      parseMs,
    },
    'document read',
  );
  if (document.sections.every((section) => section.text.trim() === '') && document.pageImages.length === 0) {
    return { problem: `${name} has no text I could read.` };
  }
  await options.store
    .keep(documentHash, document)
    .catch((error: unknown) =>
      options.logger.warn(
        { err: error, document: name },
        'document text not kept; a follow-up will read it again',
      ),
    );
  return { documentHash, document };
}

function sourceOf(attachment: DocumentAttachment): { sourceUrl?: string } {
  return attachment.sourceUrl ? { sourceUrl: attachment.sourceUrl } : {};
}

/** What the person is told when a file could not be read, by why. */
function problemMessage({
  name,
  reason,
  options,
}: {
  name: string;
  reason: ReadProblemReason;
  options: DocumentReaderOptions;
}): string {
  switch (reason) {
    case 'encrypted':
      return `${name} is protected with a password, so I could not read it. Send a copy without the password.`;
    case 'unsupported':
      return `I cannot read ${name}: I read PDF, Word (.docx), Excel (.xlsx), CSV and text files. I left it out.`;
    case 'presentation':
      return `I cannot read presentations like ${name} yet; export it as a PDF and send that.`;
    case 'unpacks-too-large':
      return `${name} unpacks to more than ${formatSize(options.readLimits.maxUnpackedBytes)}, more than I unpack, so I left it out.`;
    case 'too-slow':
      return `${name} took longer than ${Math.round(options.workerLimits.timeoutMs / 1000)} s to read, so I left it out.`;
    case 'too-much-memory':
      return `${name} needs more memory to read than I allow, so I left it out.`;
    case 'empty':
      return `${name} has no text I could read.`;
    case 'damaged':
      return `${name} could not be read (it seems damaged, or is not what its name says), so I left it out.`;
  }
}

interface Slots {
  run<Result>(task: () => Promise<Result>): Promise<Result>;
}

// A counting semaphore: at most `count` tasks at once, the rest in arrival order.
function createSlots(count: number): Slots {
  let running = 0;
  const waiting: Array<() => void> = [];
  return {
    async run(task) {
      if (running >= count) await new Promise<void>((resolve) => waiting.push(resolve));
      running += 1;
      try {
        return await task();
      } finally {
        running -= 1;
        waiting.shift()?.();
      }
    },
  };
}
