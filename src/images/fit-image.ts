import type { Sharp } from 'sharp';
import type { ImageMimeType } from './image-type.ts';

/** Above this many bytes an image is re-encoded even when its dimensions are fine. */
const comfortableBytes = 4 * 1024 * 1024;

/**
 * More pixels than this is refused before decoding: a few KB of PNG can claim 30,000 × 30,000 pixels
 * (a decompression bomb) and decoding it would take gigabytes. 50 MP holds every camera photo.
 */
export const defaultMaxInputPixels = 50_000_000;

/** An image that cannot be sent: cut short, corrupt, or with too many pixels to decode safely. */
export class UndecodableImageError extends Error {
  override readonly name = 'UndecodableImageError';
  readonly reason: 'corrupt' | 'too-many-pixels';
  readonly widthPx: number | undefined;
  readonly heightPx: number | undefined;
  constructor({
    reason,
    message,
    widthPx,
    heightPx,
    cause,
  }: {
    reason: UndecodableImageError['reason'];
    message: string;
    widthPx?: number | undefined;
    heightPx?: number | undefined;
    cause?: unknown;
  }) {
    super(message, { cause });
    this.reason = reason;
    this.widthPx = widthPx;
    this.heightPx = heightPx;
  }
}

export interface FittedImage {
  readonly bytes: Uint8Array;
  readonly mimeType: ImageMimeType;
  readonly wasScaled: boolean;
}

/**
 * Decodes the whole image (a truncated PNG or a corrupt JPEG fails here, not at the model), then
 * scales it down so its longest side is at most `maxDimensionPx` and it is a few MB at most: vision
 * models downscale large images anyway, and every byte is sent base64 in the request. Small images
 * pass through untouched once decoded. A photo becomes JPEG; an image with transparency stays PNG.
 * Throws `UndecodableImageError`.
 */
export async function fitImage({
  bytes,
  mimeType,
  maxDimensionPx,
  maxInputPixels = defaultMaxInputPixels,
}: {
  bytes: Uint8Array;
  mimeType: ImageMimeType;
  maxDimensionPx: number;
  maxInputPixels?: number;
}): Promise<FittedImage> {
  // libvips is loaded with the first image, not at start: most processes never fit one.
  const { default: sharp } = await import('sharp');
  // sharp's own limit stays as a backstop; the header check gives the person the numbers.
  const image = sharp(bytes, { animated: false, limitInputPixels: maxInputPixels });
  // The header is read without sharp's limit, so an image over it is reported with its size.
  const header = sharp(bytes, { animated: false, limitInputPixels: false });
  const metadata = await header.metadata().catch((error: unknown) => {
    throw new UndecodableImageError({ reason: 'corrupt', message: 'image header unreadable', cause: error });
  });
  const widthPx = metadata.width ?? 0;
  const heightPx = metadata.height ?? 0;
  if (widthPx * heightPx > maxInputPixels) {
    throw new UndecodableImageError({
      reason: 'too-many-pixels',
      message: `image is ${widthPx}x${heightPx} pixels, over ${maxInputPixels}`,
      widthPx,
      heightPx,
    });
  }
  try {
    return await decodeAndFit({
      image,
      bytes,
      mimeType,
      maxDimensionPx,
      longestSidePx: Math.max(widthPx, heightPx),
      hasAlpha: metadata.hasAlpha === true,
    });
  } catch (error) {
    throw new UndecodableImageError({
      reason: 'corrupt',
      message: `image could not be decoded: ${(error as Error).message}`,
      widthPx,
      heightPx,
      cause: error,
    });
  }
}

async function decodeAndFit({
  image,
  bytes,
  mimeType,
  maxDimensionPx,
  longestSidePx,
  hasAlpha,
}: {
  image: Sharp;
  bytes: Uint8Array;
  mimeType: ImageMimeType;
  maxDimensionPx: number;
  longestSidePx: number;
  hasAlpha: boolean;
}): Promise<FittedImage> {
  if (longestSidePx <= maxDimensionPx && bytes.length <= comfortableBytes) {
    // Reading every pixel is what finds a file cut short or corrupt in the middle; the header
    // alone (metadata) looks fine for both. sharp fails on libvips warnings by default.
    await image.clone().stats();
    return { bytes, mimeType, wasScaled: false };
  }
  const resized = image.rotate().resize({
    width: maxDimensionPx,
    height: maxDimensionPx,
    fit: 'inside',
    withoutEnlargement: true,
  });
  if (hasAlpha) {
    return {
      bytes: new Uint8Array(await resized.png({ compressionLevel: 9 }).toBuffer()),
      mimeType: 'image/png',
      wasScaled: true,
    };
  }
  return {
    bytes: new Uint8Array(await resized.jpeg({ quality: 85, mozjpeg: true }).toBuffer()),
    mimeType: 'image/jpeg',
    wasScaled: true,
  };
}
