import type { DocumentAttachment, ImageAttachment, IncomingTurn } from '../conversation/turn.ts';
import type { DocumentReader, ReadDocument } from './document-reader.ts';

/** What the engine reads besides the message: attached documents, and the links in the text. */
export interface TurnReading {
  readonly reader: DocumentReader;
  /** Most characters of documents in one request (`DOCUMENT_CONTEXT_MAX_CHARACTERS`). */
  readonly maxContextCharacters: number;
  /** Turns the links of a message into documents and images (links/), when link reading is on. */
  readonly readLinks?: (request: { turn: IncomingTurn; signal?: AbortSignal }) => Promise<LinkFindings>;
}

/** What the links of a message led to. */
export interface LinkFindings {
  readonly documents: readonly DocumentAttachment[];
  readonly images: readonly ImageAttachment[];
  readonly notices: readonly string[];
}

export interface TurnDocuments {
  readonly documents: ReadDocument[];
  /** Images the links led to, for image intake. */
  readonly linkImages: readonly ImageAttachment[];
  readonly notices: string[];
}

/** Reads the turn's documents and links, in parallel; what cannot be read becomes a notice. */
export async function readTurnDocuments({
  reading,
  turn,
  signal,
}: {
  reading: TurnReading | undefined;
  turn: IncomingTurn;
  signal?: AbortSignal | undefined;
}): Promise<TurnDocuments> {
  if (!reading) return { documents: [], linkImages: [], notices: [] };
  const links = reading.readLinks
    ? await reading.readLinks({ turn, ...(signal ? { signal } : {}) })
    : { documents: [], images: [], notices: [] };
  const attachments = [...(turn.documents ?? []), ...links.documents];
  const results = await Promise.all(attachments.map((attachment) => reading.reader.read(attachment)));
  const documents: ReadDocument[] = [];
  const notices = [...links.notices];
  for (const result of results) {
    if ('problem' in result) notices.push(result.problem);
    else documents.push(result);
  }
  return { documents, linkImages: links.images, notices };
}
