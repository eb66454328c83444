import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { loadImages } from '../../src/conversation/image-intake.ts';
import { createCapturedLogger } from '../support/capture-logger.ts';

// Noise does not compress, so a cut anywhere lands inside the pixel data, not in trailing metadata.
const noise = Buffer.from(Array.from({ length: 200 * 200 * 3 }, (_, index) => (index * 7_919) % 251));
const raw = { raw: { width: 200, height: 200, channels: 3 as const } };

/** A PNG whose header claims `widthPx` × `heightPx` pixels, though its data is a few bytes. */
function pngClaiming(widthPx: number, heightPx: number): Uint8Array {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(widthPx, 0);
  header.writeUInt32BE(heightPx, 4);
  header.set([8, 0, 0, 0, 0], 8); // 8-bit greyscale
  return new Uint8Array(
    Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk('IHDR', header),
      chunk('IDAT', deflateSync(Buffer.alloc(1_024))),
      chunk('IEND', Buffer.alloc(0)),
    ]),
  );
}

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

async function noticesFor(name: string, bytes: Uint8Array) {
  const { logger } = createCapturedLogger();
  const loaded = await loadImages({
    attachments: [{ name, load: async () => bytes }],
    maxBytes: 10 * 1024 * 1024,
    logger,
  });
  return { parts: loaded.parts, notices: loaded.notices };
}

describe('every image is decoded in full before it goes to the model', () => {
  it('sends a whole small PNG', async () => {
    const png = new Uint8Array(await sharp(noise, raw).png().toBuffer());
    expect((await noticesFor('whole.png', png)).parts).toHaveLength(1);
  });

  it('refuses a truncated PNG with a note', async () => {
    const png = await sharp(noise, raw).png().toBuffer();
    const cut = new Uint8Array(png.subarray(0, Math.floor(png.length * 0.6)));
    expect(await noticesFor('cut.png', cut)).toEqual({
      parts: [],
      notices: ['cut.png is damaged or cut short (it could not be decoded), so I left it out.'],
    });
  });

  it('refuses a JPEG corrupt in the middle, and one cut short', async () => {
    const jpeg = await sharp(noise, raw).jpeg().toBuffer();
    const corrupt = Buffer.from(jpeg);
    const middle = Math.floor(corrupt.length / 2);
    for (let index = middle; index < middle + 200; index += 1) corrupt[index] = (corrupt[index] ?? 0) ^ 0xff;
    const cut = jpeg.subarray(0, Math.floor(jpeg.length / 2));
    expect((await noticesFor('corrupt.jpg', new Uint8Array(corrupt))).notices).toEqual([
      'corrupt.jpg is damaged or cut short (it could not be decoded), so I left it out.',
    ]);
    expect((await noticesFor('half.jpg', new Uint8Array(cut))).notices).toEqual([
      'half.jpg is damaged or cut short (it could not be decoded), so I left it out.',
    ]);
  });

  it('refuses a decompression bomb by its pixel count, before decoding it', async () => {
    const bomb = pngClaiming(30_000, 30_000);
    expect(bomb.length).toBeLessThan(200);
    expect(await noticesFor('bomb.png', bomb)).toEqual({
      parts: [],
      notices: ['bomb.png is 30000 × 30000 pixels, more than the 50 million I can read, so I left it out.'],
    });
  });
});
