import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { GatewayError } from '../../src/gateway/gateway-error.ts';
import { detectImageType } from '../../src/images/image-type.ts';
import { type GatewayUnderTest, startGatewayUnderTest } from '../support/gateway-under-test.ts';

let subject: GatewayUnderTest;
beforeAll(async () => {
  subject = await startGatewayUnderTest();
});
afterAll(() => subject.close());
beforeEach(() => subject.fake.reset());

const imageRequests = () =>
  subject.fake.requests.filter((request) => request.path === '/api/v1/images/generations');

describe('generateImages', () => {
  it('decodes b64_json images and sends every supported option', async () => {
    const result = await subject.gateway.generateImages({
      hold: subject.hold,
      model: 'gpt-image-1',
      prompt: 'a red fox',
      count: 2,
      aspectRatio: '16:9',
      outputFormat: 'png',
    });
    expect(result.images).toHaveLength(2);
    for (const image of result.images) {
      expect(image.mimeType).toBe('image/png');
      expect(detectImageType(image.bytes)).toBe('image/png');
    }
    expect(result.notices).toEqual([]);
    expect(imageRequests()[0]?.body).toEqual({
      model: 'gpt-image-1',
      prompt: 'a red fox',
      n: 2,
      aspect_ratio: '16:9',
      output_format: 'png',
    });
  });

  it('asks for links where the model supports them and downloads the bytes', async () => {
    const result = await subject.gateway.generateImages({
      hold: subject.hold,
      model: 'url-image-model',
      prompt: 'a lighthouse',
      count: 1,
      outputFormat: 'jpg',
      referenceImages: ['https://example.invalid/ref.png'],
    });
    expect(imageRequests()[0]?.body).toMatchObject({
      response_format: 'url',
      output_format: 'jpg',
      image_input: ['https://example.invalid/ref.png'],
    });
    expect(result.images[0]?.mimeType).toBe('image/jpeg');
    const download = subject.fake.requests.find((request) => request.path.startsWith('/files/'));
    expect(download).toBeDefined();
    // The gateway key is for the gateway only, not for whatever host serves the image.
    expect(download?.headers.authorization).toBeUndefined();
  });

  it('leaves out what the model cannot take, with a note for the person', async () => {
    const result = await subject.gateway.generateImages({
      hold: subject.hold,
      model: 'plain-image-model',
      prompt: 'a cat',
      count: 1,
      aspectRatio: '4:3',
      referenceImages: ['https://example.invalid/ref.png'],
    });
    const body = imageRequests()[0]?.body as Record<string, unknown>;
    expect(body).not.toHaveProperty('aspect_ratio');
    expect(body).not.toHaveProperty('image_input');
    expect(body).not.toHaveProperty('response_format');
    expect(result.notices).toHaveLength(2);
    expect(result.notices.join(' ')).toMatch(/aspect ratio/);
    expect(result.notices.join(' ')).toMatch(/reference image/);
    expect(result.images).toHaveLength(1);
  });

  it('maps an image error to the same typed family', async () => {
    subject.fake.enqueue({ endpoint: 'images', error: { status: 402 } });
    let caught: unknown;
    try {
      await subject.gateway.generateImages({
        hold: subject.hold,
        model: 'gpt-image-1',
        prompt: 'x',
        count: 1,
      });
    } catch (error) {
      caught = error;
    }
    expect((caught as GatewayError).kind).toBe('insufficient-balance');
  });
});
