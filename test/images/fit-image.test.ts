import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { loadImages } from '../../src/conversation/image-intake.ts';
import { fitImage } from '../../src/images/fit-image.ts';
import { detectImageType } from '../../src/images/image-type.ts';
import { createCapturedLogger } from '../support/capture-logger.ts';

async function solidImage({
  widthPx,
  heightPx,
  hasAlpha,
}: {
  widthPx: number;
  heightPx: number;
  hasAlpha: boolean;
}) {
  const channels = hasAlpha ? 4 : 3;
  const background = hasAlpha ? { r: 10, g: 200, b: 30, alpha: 0.5 } : { r: 10, g: 200, b: 30 };
  return new Uint8Array(
    await sharp({ create: { width: widthPx, height: heightPx, channels, background } })
      .png()
      .toBuffer(),
  );
}

describe('fitImage', () => {
  it('leaves a small image exactly as it was', async () => {
    const bytes = await solidImage({ widthPx: 64, heightPx: 32, hasAlpha: false });
    const fitted = await fitImage({ bytes, mimeType: 'image/png', maxDimensionPx: 2_048 });
    expect(fitted).toEqual({ bytes, mimeType: 'image/png', wasScaled: false });
  });

  it('scales a large photo to the longest side as JPEG, keeping its shape', async () => {
    const bytes = await solidImage({ widthPx: 3_000, heightPx: 1_000, hasAlpha: false });
    const fitted = await fitImage({ bytes, mimeType: 'image/png', maxDimensionPx: 1_024 });
    expect(fitted.wasScaled).toBe(true);
    expect(fitted.mimeType).toBe('image/jpeg');
    expect(detectImageType(fitted.bytes)).toBe('image/jpeg');
    const metadata = await sharp(fitted.bytes).metadata();
    expect([metadata.width, metadata.height]).toEqual([1_024, 341]);
  });

  it('keeps transparency as PNG', async () => {
    const bytes = await solidImage({ widthPx: 1_500, heightPx: 1_500, hasAlpha: true });
    const fitted = await fitImage({ bytes, mimeType: 'image/png', maxDimensionPx: 512 });
    expect(fitted.mimeType).toBe('image/png');
    expect((await sharp(fitted.bytes).metadata()).width).toBe(512);
  });
});

describe('loadImages', () => {
  const { logger } = createCapturedLogger();

  it('explains an image that is too big or cannot be decoded, and keeps the good ones', async () => {
    const good = await solidImage({ widthPx: 8, heightPx: 8, hasAlpha: false });
    const brokenPng = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);
    const loaded = await loadImages({
      attachments: [
        { name: 'good.png', load: async () => good },
        { name: 'huge.png', load: async () => new Uint8Array(2_000) },
        { name: 'broken.png', load: async () => brokenPng },
      ],
      maxBytes: 1_000,
      logger,
    });
    expect(loaded.references.map((reference) => reference.name)).toEqual(['good.png']);
    expect(loaded.notices).toEqual([
      'huge.png is 2 KB, over the 1 KB limit, so I left it out.',
      'broken.png is damaged or cut short (it could not be decoded), so I left it out.',
    ]);
  });
});
