import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';

/**
 * The bad inputs people (or attackers) send, made for real: a PNG that really is 50 MB, a bomb that
 * really inflates to gigabytes of pixels, a JPEG really damaged in its middle.
 */
const pngSignature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length, 0);
  const typeAndData = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const checksum = Buffer.alloc(4);
  checksum.writeUInt32BE(crc32(typeAndData), 0);
  return Buffer.concat([length, typeAndData, checksum]);
}

/** A valid 8-bit greyscale PNG whose pixels are `rows` (each row prefixed by filter byte 0). */
function greyscalePng({
  widthPx,
  heightPx,
  pixels,
  level,
}: {
  widthPx: number;
  heightPx: number;
  pixels: Buffer;
  level: number;
}) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(widthPx, 0);
  header.writeUInt32BE(heightPx, 4);
  header.set([8, 0, 0, 0, 0], 8);
  return Buffer.concat([
    pngSignature,
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(pixels, { level })),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A valid PNG of noise, about `sizeBytes` long (stored without compression, as noise would be). */
export function largeNoisePng(sizeBytes: number): Buffer {
  const widthPx = 4_000;
  const heightPx = Math.ceil(sizeBytes / (widthPx + 1));
  const pixels = Buffer.alloc((widthPx + 1) * heightPx);
  for (let index = 0; index < pixels.length; index += 1) pixels[index] = (index * 2_654_435_761) >>> 24;
  for (let row = 0; row < heightPx; row += 1) pixels[row * (widthPx + 1)] = 0;
  return greyscalePng({ widthPx, heightPx, pixels, level: 0 });
}

/** A real decompression bomb: 12,000 × 12,000 black pixels (144 MB decoded) in about 140 KB. */
export function decompressionBombPng(): Buffer {
  const sidePx = 12_000;
  return greyscalePng({
    widthPx: sidePx,
    heightPx: sidePx,
    pixels: Buffer.alloc((sidePx + 1) * sidePx),
    level: 9,
  });
}

/** A web page, as a proxy's error page or a sign-in page comes back, named like a photo. */
export const htmlPage = Buffer.from(
  '<!DOCTYPE html><html><head><title>Sign in</title></head><body><form>Please sign in</form></body></html>',
);

/** A JPEG of noise with 200 bytes in its middle inverted. */
export async function corruptJpeg(): Promise<Buffer> {
  const noise = Buffer.from(Array.from({ length: 200 * 200 * 3 }, (_, index) => (index * 7_919) % 251));
  const jpeg = Buffer.from(
    await sharp(noise, { raw: { width: 200, height: 200, channels: 3 } })
      .jpeg()
      .toBuffer(),
  );
  const middle = Math.floor(jpeg.length / 2);
  for (let index = middle; index < middle + 200; index += 1) jpeg[index] = (jpeg[index] ?? 0) ^ 0xff;
  return jpeg;
}

/** A three-frame animated GIF, 32 × 32. */
export async function animatedGif(): Promise<Buffer> {
  const sidePx = 32;
  const frameCount = 3;
  const frameBytes = sidePx * sidePx * 3;
  const pixels = Buffer.alloc(frameBytes * frameCount);
  for (let frame = 0; frame < frameCount; frame += 1)
    pixels.fill(40 + frame * 80, frame * frameBytes, (frame + 1) * frameBytes);
  return sharp(pixels, {
    raw: { width: sidePx, height: sidePx * frameCount, channels: 3, pageHeight: sidePx },
  })
    .gif({ delay: [200, 200, 200], loop: 0 })
    .toBuffer();
}

/** A PNG of noise cut off at 60 %: the signature and header are fine, the pixels stop short. */
export function truncatedPng(): Buffer {
  const whole = largeNoisePng(200 * 1024);
  return whole.subarray(0, Math.floor(whole.length * 0.6));
}
