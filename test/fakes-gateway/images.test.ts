import { inflateSync } from 'node:zlib';
import OpenAI from 'openai';
import type { ImageGenerateParamsNonStreaming } from 'openai/resources/images';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeGateway, startFakeGateway } from '../fakes/gateway/index.ts';
import { createSdkClient, rejectionOf } from './sdk-client.ts';

const pngSignature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** The width, height and first pixel of a PNG written by the fake (8-bit RGB, unfiltered). */
function readPng(bytes: Buffer): { widthPx: number; heightPx: number; firstPixel: number[] } {
  expect([...bytes.subarray(0, 8)]).toEqual(pngSignature);
  expect(bytes.subarray(12, 16).toString('ascii')).toBe('IHDR');
  const idatAt = bytes.indexOf('IDAT');
  const idatLength = bytes.readUInt32BE(idatAt - 4);
  const pixels = inflateSync(bytes.subarray(idatAt + 4, idatAt + 4 + idatLength));
  return {
    widthPx: bytes.readUInt32BE(16),
    heightPx: bytes.readUInt32BE(20),
    firstPixel: [...pixels.subarray(1, 4)],
  };
}

function isJpeg(bytes: Buffer): boolean {
  return (
    bytes[0] === 0xff &&
    bytes[1] === 0xd8 &&
    bytes[2] === 0xff &&
    bytes.at(-2) === 0xff &&
    bytes.at(-1) === 0xd9
  );
}

// The reference's `output_format` is `jpg` | `png` and `aspect_ratio` is gateway-specific, while the
// SDK's types know `png` | `webp` | `jpeg` and no aspect ratio: the body is widened on purpose.
function gatewayImageParams(params: Record<string, unknown>): ImageGenerateParamsNonStreaming {
  return params as unknown as ImageGenerateParamsNonStreaming;
}

describe('fake gateway: image generation', () => {
  let fake: FakeGateway;
  let client: OpenAI;

  beforeAll(async () => {
    fake = await startFakeGateway({
      models: { 'plain-image-model': { imageUrlOutput: false, imageInput: false } },
    });
    client = createSdkClient(fake);
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.reset());

  it('returns a base64 PNG by default', async () => {
    const response = await client.images.generate({ model: 'image-model', prompt: 'a blue square' });

    expect(Math.abs((response.created ?? 0) - Date.now() / 1000)).toBeLessThan(60);
    expect(response.data).toHaveLength(1);
    const image = response.data?.[0];
    expect(image?.url).toBeUndefined();
    const png = readPng(Buffer.from(image?.b64_json ?? '', 'base64'));
    expect(png).toMatchObject({ widthPx: 8, heightPx: 8 });
  });

  it('returns n images, each its own colour', async () => {
    const response = await client.images.generate({ model: 'image-model', prompt: 'variants', n: 3 });

    const colours = (response.data ?? []).map(
      (image) => readPng(Buffer.from(image.b64_json ?? '', 'base64')).firstPixel,
    );
    expect(colours).toHaveLength(3);
    expect(new Set(colours.map(String)).size).toBe(3);
  });

  it('returns links served by the fake itself with response_format url', async () => {
    const response = await client.images.generate({
      model: 'image-model',
      prompt: 'a link please',
      n: 2,
      response_format: 'url',
    });

    const urls = (response.data ?? []).map((image) => image.url ?? '');
    expect(urls).toHaveLength(2);
    expect(response.data?.every((image) => image.b64_json === undefined)).toBe(true);
    for (const url of urls) {
      expect(url.startsWith(`http://127.0.0.1:${fake.port}/files/`)).toBe(true);
      const download = await fetch(url);
      expect(download.status).toBe(200);
      expect(download.headers.get('content-type')).toBe('image/png');
      readPng(Buffer.from(await download.arrayBuffer()));
    }
    const downloads = fake.requests.filter((request) => request.method === 'GET');
    expect(downloads).toHaveLength(2);
    expect(downloads.every((request) => request.headers.authorization === undefined)).toBe(true);
  });

  it('returns a JPEG for output_format jpg, as base64 and as a link', async () => {
    const inline = await client.images.generate(
      gatewayImageParams({ model: 'image-model', prompt: 'jpeg', output_format: 'jpg' }),
    );
    const linked = await client.images.generate(
      gatewayImageParams({
        model: 'image-model',
        prompt: 'jpeg',
        output_format: 'jpg',
        response_format: 'url',
      }),
    );

    expect(isJpeg(Buffer.from(inline.data?.[0]?.b64_json ?? '', 'base64'))).toBe(true);
    const url = linked.data?.[0]?.url ?? '';
    expect(url).toMatch(/\.jpg$/);
    const download = await fetch(url);
    expect(download.headers.get('content-type')).toBe('image/jpeg');
    expect(isJpeg(Buffer.from(await download.arrayBuffer()))).toBe(true);
  });

  it('shapes the PNG after aspect_ratio', async () => {
    const response = await client.images.generate(
      gatewayImageParams({ model: 'image-model', prompt: 'wide', aspect_ratio: '16:9' }),
    );

    const png = readPng(Buffer.from(response.data?.[0]?.b64_json ?? '', 'base64'));
    expect(png.widthPx / png.heightPx).toBeCloseTo(16 / 9);
  });

  it('records the image request body as sent', async () => {
    await client.images.generate(
      gatewayImageParams({
        model: 'image-model',
        prompt: 'a cat in the style of this',
        image_input: ['https://cdn.example.com/reference.png'],
      }),
    );

    expect(fake.requests[0]?.path).toBe('/api/v1/images/generations');
    expect(fake.requests[0]?.body).toEqual({
      model: 'image-model',
      prompt: 'a cat in the style of this',
      image_input: ['https://cdn.example.com/reference.png'],
    });
  });

  it('refuses response_format url and image_input on a model without them', async () => {
    const urlError = await rejectionOf(
      client.images.generate({ model: 'plain-image-model', prompt: 'x', response_format: 'url' }),
    );
    const inputError = await rejectionOf(
      client.images.generate(
        gatewayImageParams({
          model: 'plain-image-model',
          prompt: 'x',
          image_input: ['https://example.com/a.png'],
        }),
      ),
    );
    const plain = await client.images.generate({ model: 'plain-image-model', prompt: 'x' });

    expect(urlError).toBeInstanceOf(OpenAI.BadRequestError);
    expect(urlError).toMatchObject({ param: 'response_format', code: 'unsupported_parameter' });
    expect(inputError).toMatchObject({ status: 400, param: 'image_input' });
    expect(plain.data?.[0]?.b64_json).toBeTypeOf('string');
  });

  it('refuses a request without a prompt or with an output_format outside jpg and png', async () => {
    const missingPrompt = await rejectionOf(
      client.images.generate(gatewayImageParams({ model: 'image-model' })),
    );
    const jpegSpelling = await rejectionOf(
      client.images.generate({ model: 'image-model', prompt: 'x', output_format: 'jpeg' }),
    );

    expect(missingPrompt).toMatchObject({ status: 400, param: 'prompt' });
    expect(jpegSpelling).toMatchObject({ status: 400, param: 'output_format' });
  });

  it('answers 404 for an image file it never made', async () => {
    const response = await fetch(`http://127.0.0.1:${fake.port}/files/img-999.png`);

    expect(response.status).toBe(404);
  });
});
