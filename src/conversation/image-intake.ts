import { formatSize } from '../format-size.ts';
import type { ContentPart } from '../gateway/chat-types.ts';
import { defaultMaxInputPixels, fitImage, UndecodableImageError } from '../images/fit-image.ts';
import { ImageLoadError } from '../images/image-load-error.ts';
import { detectImageType, toDataUri } from '../images/image-type.ts';
import type { Logger } from '../log.ts';
import { renderNotice } from '../notices/render-notice.ts';
import type { ImageAttachment, ImageReference } from './turn.ts';

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
  maxDimensionPx = 2_048,
  logger,
}: {
  attachments: readonly ImageAttachment[];
  maxBytes: number;
  /** Longest side an image is scaled down to before it is sent. */
  maxDimensionPx?: number;
  logger: Logger;
}): Promise<LoadedImages> {
  const loaded: LoadedImages = { parts: [], references: [], notices: [] };
  const results = await Promise.allSettled(
    attachments.map((attachment) => checkImage({ attachment, maxBytes, maxDimensionPx })),
  );
  results.forEach((result, index) => {
    const attachment = attachments[index];
    if (!attachment) return;
    if (result.status === 'rejected') {
      logger.warn(
        { err: result.reason, attachment: attachment.name },
        'image attachment could not be loaded',
      );
      loaded.notices.push(
        renderNotice(
          result.reason instanceof ImageLoadError
            ? { type: 'image-refused', explanation: result.reason.userMessage }
            : { type: 'image-unreadable', name: attachment.name },
        ),
      );
      return;
    }
    const image = result.value;
    if (!image) {
      loaded.notices.push(renderNotice({ type: 'image-not-an-image', name: attachment.name }));
      return;
    }
    loaded.parts.push({ type: 'image_url', image_url: { url: toDataUri(image) } });
    loaded.references.push({
      name: attachment.name,
      mimeType: image.mimeType,
      byteLength: image.bytes.length,
    });
  });
  return loaded;
}

async function checkImage({
  attachment,
  maxBytes,
  maxDimensionPx,
}: {
  attachment: ImageAttachment;
  maxBytes: number;
  maxDimensionPx: number;
}) {
  const bytes = await attachment.load();
  if (bytes.length > maxBytes) {
    throw new ImageLoadError({
      message: `attachment is ${bytes.length} bytes`,
      userMessage: `${attachment.name} is ${formatSize(bytes.length)}, over the ${formatSize(maxBytes)} limit, so I left it out.`,
    });
  }
  const mimeType = detectImageType(bytes);
  if (!mimeType) return undefined;
  try {
    return await fitImage({ bytes, mimeType, maxDimensionPx });
  } catch (error) {
    if (error instanceof UndecodableImageError && error.reason === 'too-many-pixels') {
      throw new ImageLoadError({
        message: error.message,
        userMessage: `${attachment.name} is ${error.widthPx} × ${error.heightPx} pixels, more than the ${defaultMaxInputPixels / 1_000_000} million I can read, so I left it out.`,
        cause: error,
      });
    }
    throw new ImageLoadError({
      message: 'image could not be decoded',
      userMessage: `${attachment.name} is damaged or cut short (it could not be decoded), so I left it out.`,
      cause: error,
    });
  }
}
