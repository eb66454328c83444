import sharp from 'sharp';
import type { ImageMimeType } from './image-type.ts';

/** Above this many bytes an image is re-encoded even when its dimensions are fine. */
const comfortableBytes = 4 * 1024 * 1024;

export interface FittedImage {
  readonly bytes: Uint8Array;
  readonly mimeType: ImageMimeType;
  readonly wasScaled: boolean;
}

/**
 * Scales an image down so its longest side is at most `maxDimensionPx` and it is a few MB at most:
 * vision models downscale large images anyway, and every byte is sent base64 in the request. Small
 * images pass through untouched. A photo becomes JPEG; an image with transparency stays PNG.
 */
export async function fitImage({
  bytes,
  mimeType,
  maxDimensionPx,
}: {
  bytes: Uint8Array;
  mimeType: ImageMimeType;
  maxDimensionPx: number;
}): Promise<FittedImage> {
  const image = sharp(bytes, { animated: false, limitInputPixels: 100_000_000 });
  const metadata = await image.metadata();
  const longestSidePx = Math.max(metadata.width ?? 0, metadata.height ?? 0);
  if (longestSidePx <= maxDimensionPx && bytes.length <= comfortableBytes) {
    return { bytes, mimeType, wasScaled: false };
  }
  const resized = image.rotate().resize({
    width: maxDimensionPx,
    height: maxDimensionPx,
    fit: 'inside',
    withoutEnlargement: true,
  });
  if (metadata.hasAlpha) {
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
