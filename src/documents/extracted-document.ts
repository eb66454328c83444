import { z } from 'zod';

/** The kinds of document parley reads, told apart by their bytes (see document-kind.ts). */
export const documentKinds = ['pdf', 'docx', 'xlsx', 'pptx', 'csv', 'text', 'html'] as const;
export type DocumentKind = (typeof documentKinds)[number];

const sectionSchema = z.object({
  /** Where this part is in the file, as an answer cites it: `p. 4`, `Sheet1!A1:D20`, `slide 3`. */
  location: z.string().optional(),
  text: z.string(),
});

export const extractedDocumentSchema = z.object({
  name: z.string(),
  kind: z.enum(documentKinds),
  /** A web page's or document's own title, when it has one. */
  title: z.string().optional(),
  /** The link it was read from. */
  sourceUrl: z.string().optional(),
  sections: z.array(sectionSchema),
  /** Pages (PDF), sheets (XLSX) or slides (PPTX) in the whole file. */
  unitCount: z.number().int().nonnegative().optional(),
  /** How many of them were read (a page cap, a character cap). */
  readUnitCount: z.number().int().nonnegative().optional(),
  /** Scanned pages (no text layer) rendered as PNG, base64, for a vision model. */
  pageImages: z.array(z.object({ location: z.string(), pngBase64: z.string() })).default([]),
  /** What the reader left out or could not do, in words for the person. */
  notes: z.array(z.string()).default([]),
});

/** A document's readable content, as a reader produced it and the document store keeps it. */
export type ExtractedDocument = z.infer<typeof extractedDocumentSchema>;
export type DocumentSection = z.infer<typeof sectionSchema>;

/** The limits a reader works within; they bound memory and time as much as the worker's limits do. */
export interface ReadLimits {
  /** Pages, slides or sheets read at most. */
  readonly maxUnits: number;
  /** Characters extracted at most; the rest is left out with a note. */
  readonly maxCharacters: number;
  /** Scanned PDF pages rendered to images at most. */
  readonly maxRenderedPages: number;
  /** Total uncompressed bytes a DOCX/XLSX/PPTX may unpack to. */
  readonly maxUnpackedBytes: number;
}

/** What every reader is given: the file's bytes (or its decoded text), its name, the limits. */
export interface ReaderInput {
  readonly bytes: Uint8Array;
  readonly name: string;
  readonly limits: ReadLimits;
}

/** The same for readers of text formats (CSV, HTML, plain text): the bytes decoded as UTF-8. */
export interface TextReaderInput {
  readonly text: string;
  readonly name: string;
  readonly limits: ReadLimits;
}

/** What a kind is called in a note or a document header. */
export function describeKind(kind: DocumentKind): string {
  const names: Record<DocumentKind, string> = {
    pdf: 'PDF',
    docx: 'Word document',
    xlsx: 'spreadsheet',
    pptx: 'presentation',
    csv: 'CSV table',
    text: 'text file',
    html: 'web page',
  };
  return names[kind];
}
