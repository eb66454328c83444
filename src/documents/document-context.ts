import { tokensPerImage } from '../conversation/context-budget.ts';
import type { StoredTurn } from '../conversation/turn.ts';
import type { ContentPart } from '../gateway/chat-types.ts';
import { renderNotice } from '../notices/render-notice.ts';
import type { DocumentReader, ReadDocument } from './document-reader.ts';
import { describeKind, type ExtractedDocument } from './extracted-document.ts';

/** Said to the model whenever documents are in its context, so its answers say where things are. */
export const citationInstructions =
  'Documents are given between <document> tags, with location markers such as [p. 4] or [Sheet1!A1:D20]. When you use something from a document, cite where it is in parentheses, e.g. (p. 4) or (Sheet1!B7); cite web pages by their title.';

/** Share of the room left in the context that documents may take; the rest stays for history. */
const documentShare = 0.7;
const charactersPerToken = 4;

export interface DocumentContext {
  /** The new turn's documents as text, to follow the person's message. */
  readonly text: string;
  /** Scanned pages, for a vision model. */
  readonly imageParts: ContentPart[];
  /** History with the latest earlier document put back in full (a follow-up question about it). */
  readonly history: StoredTurn[];
  /** Whether any document text is in the context: the system prompt then asks for citations. */
  readonly hasDocuments: boolean;
  readonly notices: string[];
}

/**
 * Fits the turn's documents, then the latest document of earlier turns, into the room the context
 * has beside the system prompt, the message and the reply: each is cut at a location marker when it
 * does not fit, and the person is told what was left out.
 */
export async function buildDocumentContext({
  documents,
  history,
  reader,
  roomTokens,
  maxCharacters,
}: {
  documents: readonly ReadDocument[];
  history: readonly StoredTurn[];
  reader: DocumentReader | undefined;
  /** Tokens free after the system prompt, the new message, its images and the reply. */
  roomTokens: number;
  /** Most characters of documents in one request (`DOCUMENT_CONTEXT_MAX_CHARACTERS`). */
  maxCharacters: number;
}): Promise<DocumentContext> {
  let budget = Math.min(
    maxCharacters,
    Math.floor(Math.max(0, roomTokens) * documentShare * charactersPerToken),
  );
  const notices: string[] = [];
  const blocks: string[] = [];
  documents.forEach((read, index) => {
    const share = Math.floor(budget / (documents.length - index));
    const rendered = renderDocument(read.document, share);
    budget -= rendered.text.length;
    blocks.push(rendered.text);
    notices.push(...read.document.notes, ...rendered.notices);
  });
  const imageParts: ContentPart[] = documents.flatMap((read) =>
    read.document.pageImages.map((image) => ({
      type: 'image_url' as const,
      image_url: { url: `data:image/png;base64,${image.pngBase64}` },
    })),
  );
  const earlier = await hydrateLatestDocumentTurn({ history, reader, budget });
  return {
    text: blocks.join('\n\n'),
    imageParts,
    history: earlier.history,
    hasDocuments: blocks.length > 0 || earlier.isHydrated,
    notices: [...notices, ...earlier.notices],
  };
}

/** The tokens a turn's scanned pages cost, for the room left to text. */
export function pageImageTokens(documents: readonly ReadDocument[]): number {
  return documents.reduce((total, read) => total + read.document.pageImages.length * tokensPerImage, 0);
}

/** `PDF, 12 pages`: the kind and size of a document, for headers and history. */
export function describeDocument(document: ExtractedDocument): string {
  const unit = document.kind === 'pdf' ? 'page' : document.kind === 'xlsx' ? 'sheet' : undefined;
  const count = document.unitCount;
  return unit && count !== undefined
    ? `${describeKind(document.kind)}, ${count} ${unit}${count === 1 ? '' : 's'}`
    : describeKind(document.kind);
}

/**
 * A document as the model reads it: a `<document>` header naming it, then its sections, each after
 * its location marker, cut at `maxCharacters` with a notice that says how far it was read.
 */
export function renderDocument(
  document: ExtractedDocument,
  maxCharacters: number,
): { text: string; notices: string[] } {
  const attributes = [
    `name="${escapeAttribute(document.name)}"`,
    `type="${describeDocument(document)}"`,
    ...(document.title ? [`title="${escapeAttribute(document.title)}"`] : []),
    ...(document.sourceUrl ? [`url="${escapeAttribute(document.sourceUrl)}"`] : []),
  ];
  const opening = `<document ${attributes.join(' ')}>`;
  const closing = '</document>';
  const scannedNote =
    document.pageImages.length > 0
      ? `\n(scanned: its pages ${document.pageImages.map((image) => image.location).join(', ')} follow as images, in order)`
      : '';
  let room = maxCharacters - opening.length - closing.length - scannedNote.length - 2;
  const parts: string[] = [];
  let lastLocation: string | undefined;
  let isCut = false;
  for (const section of document.sections) {
    const piece = section.location ? `[${section.location}]\n${section.text}` : section.text;
    if (piece.length > room) {
      isCut = true;
      if (room > 200) parts.push(`${piece.slice(0, room)}\n[… cut here]`);
      break;
    }
    parts.push(piece);
    room -= piece.length + 1;
    lastLocation = section.location;
  }
  const notices: string[] = [];
  if (isCut) {
    notices.push(
      renderNotice({ type: 'document-cut-for-context', name: document.name, readUpTo: lastLocation }),
    );
  }
  return { text: [opening + scannedNote, ...parts, closing].join('\n'), notices };
}

function escapeAttribute(value: string): string {
  return value.replaceAll('"', "'").replace(/[\r\n]+/g, ' ');
}

/**
 * The newest earlier turn with documents gets their text back (from the store, not parsed again),
 * so "and what does page 4 say?" works; older ones keep a placeholder, as history always has.
 */
async function hydrateLatestDocumentTurn({
  history,
  reader,
  budget,
}: {
  history: readonly StoredTurn[];
  reader: DocumentReader | undefined;
  budget: number;
}): Promise<{ history: StoredTurn[]; isHydrated: boolean; notices: string[] }> {
  const index = history.findLastIndex((turn) => turn.role === 'user' && (turn.documents ?? []).length > 0);
  const turn = history[index];
  if (!reader || !turn || budget < 500) return { history: [...history], isHydrated: false, notices: [] };
  const kept = await Promise.all(
    (turn.documents ?? []).map((reference) => reader.load(reference.documentHash).catch(() => undefined)),
  );
  const blocks: string[] = [];
  const notices: string[] = [];
  let room = budget;
  kept.forEach((document, position) => {
    if (!document) return;
    const rendered = renderDocument(document, Math.floor(room / (kept.length - position)));
    room -= rendered.text.length;
    blocks.push(rendered.text);
    notices.push(...rendered.notices);
  });
  if (blocks.length === 0) return { history: [...history], isHydrated: false, notices: [] };
  const { documents: _hydrated, ...rest } = turn;
  const hydrated: StoredTurn = { ...rest, text: `${turn.text}\n\n${blocks.join('\n\n')}` };
  return { history: history.map((each, at) => (at === index ? hydrated : each)), isHydrated: true, notices };
}
