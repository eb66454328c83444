import { crc32, deflateSync } from 'node:zlib';

/** An 8-bit RGB colour. */
export interface Rgb {
  red: number;
  green: number;
  blue: number;
}

const pngSignature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * Encodes a valid PNG of one colour. Built rather than inlined so each generated variant can get
 * its own colour and a test can tell the images of one response apart.
 */
export function createSolidPng(options: { widthPx: number; heightPx: number; colour: Rgb }): Buffer {
  const { widthPx, heightPx, colour } = options;
  const header = Buffer.alloc(13);
  header.writeUInt32BE(widthPx, 0);
  header.writeUInt32BE(heightPx, 4);
  header.writeUInt8(8, 8); // bit depth
  header.writeUInt8(2, 9); // colour type: truecolour RGB
  // Bytes 10 to 12 stay 0: deflate compression, adaptive filtering, no interlace.

  // Each scanline starts with its filter type byte, 0 (none), then the pixels.
  const scanline = Buffer.alloc(1 + widthPx * 3);
  for (let x = 0; x < widthPx; x += 1) {
    scanline.writeUInt8(colour.red, 1 + x * 3);
    scanline.writeUInt8(colour.green, 2 + x * 3);
    scanline.writeUInt8(colour.blue, 3 + x * 3);
  }
  const pixels = Buffer.concat(Array.from({ length: heightPx }, () => scanline));

  return Buffer.concat([
    pngSignature,
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(pixels)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length, 0);
  const typeAndData = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const checksum = Buffer.alloc(4);
  checksum.writeUInt32BE(crc32(typeAndData), 0);
  return Buffer.concat([length, typeAndData, checksum]);
}

/**
 * A valid 8x8 baseline JPEG of one blue, 286 bytes, made once with libjpeg's `cjpeg` and checked
 * with `djpeg`. Inlined because writing a JPEG encoder for a fake is not worth it.
 */
export const tinyJpeg: Buffer = Buffer.from(
  '/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAUDBAQEAwUEBAQFBQUGBwwIBwcHBw8LCwkMEQ8SEhEPERETFhwXExQaFRERGCEYGh0d' +
    'Hx8fExciJCIeJBweHx7/2wBDAQUFBQcGBw4ICA4eFBEUHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4e' +
    'Hh4eHh4eHh7/wAARCAAIAAgDASIAAhEBAxEB/8QAFQABAQAAAAAAAAAAAAAAAAAAAAP/xAAUEAEAAAAAAAAAAAAAAAAAAAAA/8QA' +
    'FAEBAAAAAAAAAAAAAAAAAAAAB//EABQRAQAAAAAAAAAAAAAAAAAAAAD/2gAMAwEAAhEDEQA/AKgE0ev/2Q==',
  'base64',
);
