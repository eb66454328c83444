import type { DocumentAttachment } from '../src/conversation/turn.ts';
import { citationInstructions, describeDocument, renderDocument } from '../src/documents/document-context.ts';
import type { ContentPart } from '../src/gateway/chat-types.ts';
import type { CommandResponder, CommandServices } from './define-command.ts';

/** A document given to a command (`--file`), ready for a structured request. */
export interface CommandDocument {
  /** The document with its location markers, and how to cite them. */
  readonly parts: ContentPart[];
  /** Whether it is scanned pages (images): the request then needs a vision model. */
  readonly hasImages: boolean;
  /** `report.pdf (PDF, 12 pages)`, for a card's footer. */
  readonly label: string;
  /** What was left out, for the card. */
  readonly notices: readonly string[];
}

/**
 * Reads a command's `--file` through the same reader as chat (parsed once, kept by hash), or tells
 * the person privately why it cannot be read and returns undefined.
 */
export async function readCommandDocument({
  file,
  services,
  responder,
  maxCharacters,
}: {
  file: DocumentAttachment;
  services: CommandServices;
  responder: CommandResponder;
  maxCharacters: number;
}): Promise<CommandDocument | undefined> {
  const read = await services.documents.read(file);
  if ('problem' in read) {
    await responder.send({ text: `⚠ ${read.problem}`, isPrivate: true });
    return undefined;
  }
  const { document } = read;
  const rendered = renderDocument(document, maxCharacters);
  const images: ContentPart[] = document.pageImages.map((image) => ({
    type: 'image_url',
    image_url: { url: `data:image/png;base64,${image.pngBase64}` },
  }));
  return {
    parts: [{ type: 'text', text: `${citationInstructions}\n\n${rendered.text}` }, ...images],
    hasImages: images.length > 0,
    label: `${document.name} (${describeDocument(document)})`,
    notices: [...document.notes, ...rendered.notices],
  };
}

/** The structured model when it sees images, else the vision model: for scanned pages and photos. */
export function visionCapable(services: CommandServices): string {
  return services.gateway.capabilitiesOf(services.models.structured).vision
    ? services.models.structured
    : services.models.vision;
}
