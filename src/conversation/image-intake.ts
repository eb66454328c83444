import type { ContentPart } from '../gateway/chat-types.ts';
import { detectImageType, toDataUri } from '../images/image-type.ts';
import type { Logger } from '../log.ts';
import type { ImageAttachment, ImageReference } from './turn.ts';

/** Thrown by an attachment's `load()` when the platform explains why; `userMessage` is shown as is. */
export class ImageLoadError extends Error {
  readonly userMessage: string;
  constructor({ message, userMessage, cause }: { message: string; userMessage: string; cause?: unknown }) {
    super(message, { cause });
    this.name = 'ImageLoadError';
    this.userMessage = userMessage;
  }
}

export interface LoadedImages {
  /** `image_url` parts with `data:` URIs, ready for a vision model. */
  readonly parts: ContentPart[];
  /** What history keeps of each image. */
  readonly references: ImageReference[];
  /** One line per image that was left out, for the person. */
  readonly notices: string[];
}

/**
 * Loads every attachment, checks it by its bytes (not its name) and its size, and turns the good ones
 * into `data:` URIs. A bad attachment is left out with a notice; it never fails the whole turn.
 */
export async function loadImages({
  attachments,
  maxBytes,
  logger,
}: {
  attachments: readonly ImageAttachment[];
  maxBytes: number;
  logger: Logger;
}): Promise<LoadedImages> {
  const loaded: LoadedImages = { parts: [], references: [], notices: [] };
  const results = await Promise.allSettled(attachments.map((attachment) => attachment.load()));
  results.forEach((result, index) => {
    const attachment = attachments[index];
    if (!attachment) return;
    if (result.status === 'rejected') {
      logger.warn(
        { err: result.reason, attachment: attachment.name },
        'image attachment could not be loaded',
      );
      loaded.notices.push(
        result.reason instanceof ImageLoadError
          ? result.reason.userMessage
          : `I could not read the image ${attachment.name}, so I left it out.`,
      );
      return;
    }
    const bytes = result.value;
    const mimeType = detectImageType(bytes);
    if (!mimeType) {
      loaded.notices.push(`${attachment.name} is not a PNG, JPEG, GIF or WebP image, so I left it out.`);
      return;
    }
    if (bytes.length > maxBytes) {
      loaded.notices.push(
        `${attachment.name} is ${formatMegabytes(bytes.length)}, over the ${formatMegabytes(maxBytes)} limit, so I left it out.`,
      );
      return;
    }
    loaded.parts.push({ type: 'image_url', image_url: { url: toDataUri({ bytes, mimeType }) } });
    loaded.references.push({ name: attachment.name, mimeType, byteLength: bytes.length });
  });
  return loaded;
}

function formatMegabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
