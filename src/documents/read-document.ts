import type {
  DocumentKind,
  ExtractedDocument,
  ReaderInput,
  ReadLimits,
  TextReaderInput,
} from './extracted-document.ts';
import { ReadProblem } from './readers/read-problem.ts';
import { createTextBudget, cutNotes } from './readers/text-budget.ts';
import { checkZip } from './readers/zip-guard.ts';

/** What a file is, by its bytes first: a name or a platform's MIME type only tell text kinds apart. */
export function sniffKind({
  bytes,
  name,
  mimeType = '',
}: {
  bytes: Uint8Array;
  name: string;
  mimeType?: string;
}): DocumentKind | 'zip' | undefined {
  const head = Buffer.from(bytes.subarray(0, 1_024)).toString('latin1');
  if (head.includes('%PDF-')) return 'pdf';
  if (head.startsWith('PK\u0003\u0004')) return 'zip';
  if (!isText(bytes)) return undefined;
  if (/\.(csv|tsv)$/i.test(name) || /text\/(csv|tab-separated-values)/i.test(mimeType)) return 'csv';
  if (/text\/html|xhtml/i.test(mimeType) || /^\s*(<!doctype html|<html)/i.test(head)) return 'html';
  return 'text';
}

// UTF-8 without NUL bytes in its first 64 KB (a character cut at the end of the sample is fine).
function isText(bytes: Uint8Array): boolean {
  const sample = bytes.subarray(0, 65_536);
  if (sample.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(sample, { stream: true });
    return true;
  } catch {
    return false;
  }
}

/**
 * Reads any supported file; runs inside the parse worker. Throws `ReadProblem`. Each reader is
 * imported when its kind comes up, so a worker for a CSV does not load pdf.js and exceljs.
 */
export async function readDocument({
  bytes,
  name,
  mimeType,
  limits,
}: {
  bytes: Uint8Array;
  name: string;
  mimeType?: string;
  limits: ReadLimits;
}): Promise<ExtractedDocument> {
  const kind = sniffKind({ bytes, name, ...(mimeType ? { mimeType } : {}) });
  switch (kind) {
    case 'pdf':
      return (await import('./readers/pdf-reader.ts')).readPdf({ bytes, name, limits });
    case 'zip':
      return readOfficeFile({ bytes, name, limits });
    case 'csv':
      return (await import('./readers/sheet-reader.ts')).readCsv({ text: decode(bytes), name, limits });
    case 'html':
      return (await import('./readers/html-reader.ts')).readHtml({ text: decode(bytes), name, limits });
    case 'text':
      return readPlainText({ text: decode(bytes), name, limits });
    default:
      throw new ReadProblem({
        reason: 'unsupported',
        detail: `unknown file type (${mimeType ?? 'no type'})`,
      });
  }
}

async function readOfficeFile({ bytes, name, limits }: ReaderInput): Promise<ExtractedDocument> {
  const entryNames = await checkZip({ bytes, maxUnpackedBytes: limits.maxUnpackedBytes });
  if (entryNames.includes('word/document.xml')) {
    return (await import('./readers/docx-reader.ts')).readDocx({ bytes, name, limits });
  }
  if (entryNames.includes('xl/workbook.xml')) {
    return (await import('./readers/sheet-reader.ts')).readXlsx({ bytes, name, limits });
  }
  if (entryNames.includes('ppt/presentation.xml')) {
    throw new ReadProblem({ reason: 'presentation', detail: 'pptx: no maintained reader' });
  }
  throw new ReadProblem({ reason: 'unsupported', detail: 'a zip that is not an office file' });
}

function readPlainText({ text, name, limits }: TextReaderInput): ExtractedDocument {
  const budget = createTextBudget(limits.maxCharacters);
  budget.add({ text });
  const notes = cutNotes({ name, budget });
  return { name, kind: 'text', sections: budget.sections, pageImages: [], notes };
}

function decode(bytes: Uint8Array): string {
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes).replace(/^\uFEFF/, '');
}
