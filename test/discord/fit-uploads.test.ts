import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { fitUploads, formatBytes, shrinkImage } from '../../adapters/discord/fit-uploads.ts';
import { detectImageType } from '../../src/images/image-type.ts';

/** A photo-like image that does not compress well: random noise, optionally with transparency. */
async function noisyPng({ sidePx, hasAlpha = false }: { sidePx: number; hasAlpha?: boolean }) {
  const channels = hasAlpha ? 4 : 3;
  const pixels = Buffer.alloc(sidePx * sidePx * channels);
  for (let index = 0; index < pixels.length; index += 1) {
    pixels[index] = index % channels === 3 ? 128 : Math.floor(Math.random() * 256);
  }
  const bytes = await sharp(pixels, { raw: { width: sidePx, height: sidePx, channels } })
    .png()
    .toBuffer();
  return new Uint8Array(bytes);
}

const kilobytes = 1024;

describe('fitting uploads to Discord limits', () => {
  it('re-encodes a too-large image as JPEG within the limit and says so', async () => {
    const png = await noisyPng({ sidePx: 600 });
    expect(png.length).toBeGreaterThan(800 * kilobytes);
    const fitted = await fitUploads({
      files: [{ name: 'parley-a-fox-1.png', mimeType: 'image/png', bytes: png }],
      maxFileBytes: 300 * kilobytes,
      maxTotalBytes: 25 * 1024 * kilobytes,
    });
    const [file] = fitted.files;
    expect(file?.name).toBe('parley-a-fox-1.jpg');
    expect(file?.bytes.length).toBeLessThanOrEqual(300 * kilobytes);
    expect(detectImageType(file?.bytes ?? new Uint8Array())).toBe('image/jpeg');
    expect(fitted.notes).toEqual([
      `parley-a-fox-1.png (${formatBytes(png.length)}) was over the 300 KB Discord takes a file here, so it comes as parley-a-fox-1.jpg (${formatBytes(file?.bytes.length ?? 0)}).`,
    ]);
  });

  it('keeps transparency by choosing WebP, and shrinks the dimensions when quality is not enough', async () => {
    const png = await noisyPng({ sidePx: 500, hasAlpha: true });
    const smaller = await shrinkImage({
      file: { name: 'logo.png', mimeType: 'image/png', bytes: png },
      maxBytes: 20 * kilobytes,
    });
    expect(smaller?.name).toBe('logo.webp');
    expect(smaller?.bytes.length).toBeLessThanOrEqual(20 * kilobytes);
    const metadata = await sharp(smaller?.bytes).metadata();
    expect(metadata.hasAlpha).toBe(true);
    expect(metadata.width).toBeLessThan(500);
  });

  it('leaves out what cannot be made smaller, and fits the request total by shrinking the largest', async () => {
    const json = new TextEncoder().encode(`[${'"value",'.repeat(20_000)}"end"]`);
    const photo = await noisyPng({ sidePx: 300 });
    const small = await noisyPng({ sidePx: 60 });
    const fitted = await fitUploads({
      files: [
        { name: 'extraction.json', mimeType: 'application/json', bytes: json },
        { name: 'photo.png', mimeType: 'image/png', bytes: photo },
        { name: 'small.png', mimeType: 'image/png', bytes: small },
      ],
      maxFileBytes: 100 * kilobytes,
      maxTotalBytes: 120 * kilobytes,
    });
    expect(fitted.files.map((file) => file.name)).toEqual(['photo.jpg', 'small.png']);
    const total = fitted.files.reduce((sum, file) => sum + file.bytes.length, 0);
    expect(total).toBeLessThanOrEqual(120 * kilobytes);
    expect(fitted.notes[0]).toMatch(/^I left out extraction\.json \(\d+ KB\): it is over the 100 KB/);
    expect(fitted.notes[1]).toMatch(
      /^photo\.png \(\d+ KB\) was over the (100|120) KB .*, so it comes as photo\.jpg/,
    );
  });

  it('leaves out an image that cannot get small enough', async () => {
    const png = await noisyPng({ sidePx: 200 });
    const fitted = await fitUploads({
      files: [{ name: 'noise.png', mimeType: 'image/png', bytes: png }],
      maxFileBytes: 200,
      maxTotalBytes: 10_000,
    });
    expect(fitted.files).toEqual([]);
    expect(fitted.notes).toEqual([
      `I left out noise.png (${formatBytes(png.length)}): it is over the 200 bytes Discord takes a file here.`,
    ]);
  });
});
