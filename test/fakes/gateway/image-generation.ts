import { invalidRequest } from './gateway-error.ts';
import type { ImageFileStore, StoredImage } from './image-files.ts';
import { assertModelExists, type ModelCatalog } from './model-catalog.ts';
import { type ImageRequest, imageRequestSchema, parseRequest } from './request-schemas.ts';
import { createSolidPng, type Rgb, tinyJpeg } from './sample-images.ts';
import { unixSeconds } from './unix-time.ts';

/** The response of `POST /images/generations`: one `data` item per image. */
export interface ImageGenerationResponse {
  created: number;
  data: ({ b64_json: string } | { url: string })[];
}

const minimumSidePx = 8;

// Each variant of one response gets its own colour, so a test can tell them apart.
const palette: readonly Rgb[] = [
  { red: 0x4a, green: 0x90, blue: 0xd9 },
  { red: 0xd9, green: 0x6a, blue: 0x4a },
  { red: 0x5c, green: 0xb8, blue: 0x5c },
  { red: 0xf0, green: 0xc0, blue: 0x30 },
];

/**
 * Validates an image request and generates `n` tiny images: base64 by default, or links to this
 * fake's `/files/` when `response_format` is `url`.
 */
export function generateImages(options: {
  body: unknown;
  catalog: ModelCatalog;
  files: ImageFileStore;
  /** Where the fake is reachable, e.g. `http://127.0.0.1:8787`; image links start with it. */
  origin: string;
}): ImageGenerationResponse {
  const request = validateImageRequest(options.body, options.catalog);
  const images = Array.from({ length: request.n ?? 1 }, (_, index) => createImage(request, index));
  return {
    created: unixSeconds(),
    data: images.map((image) =>
      request.response_format === 'url'
        ? { url: `${options.origin}/files/${options.files.save(image)}` }
        : { b64_json: image.bytes.toString('base64') },
    ),
  };
}

function validateImageRequest(body: unknown, catalog: ModelCatalog): ImageRequest {
  const request = parseRequest(imageRequestSchema, body);
  assertModelExists(catalog, request.model);
  const capabilities = catalog.capabilitiesOf(request.model);
  if (request.response_format === 'url' && !capabilities.imageUrlOutput) {
    throw invalidRequest(`response_format url is unsupported by model ${request.model}.`, {
      code: 'unsupported_parameter',
      param: 'response_format',
    });
  }
  if (request.image_input !== undefined && !capabilities.imageInput) {
    throw invalidRequest(`image_input is unsupported by model ${request.model}.`, {
      code: 'unsupported_parameter',
      param: 'image_input',
    });
  }
  // The reference: `image_input` takes links. A data: URI passes only where a test said so.
  const dataUriIndex = (request.image_input ?? []).findIndex((input) => input.startsWith('data:'));
  if (dataUriIndex !== -1 && !capabilities.imageInputDataUri) {
    throw invalidRequest(`image_input.${dataUriIndex}: must be a link`, {
      code: 'invalid_value',
      param: `image_input.${dataUriIndex}`,
    });
  }
  return request;
}

function createImage(request: ImageRequest, index: number): StoredImage {
  if (request.output_format === 'jpg') {
    return { bytes: tinyJpeg, contentType: 'image/jpeg' };
  }
  const colour = palette[index % palette.length] ?? { red: 0, green: 0, blue: 0 };
  return { bytes: createSolidPng({ ...sizeFor(request.aspect_ratio), colour }), contentType: 'image/png' };
}

// A PNG's shape follows `aspect_ratio` (16:9 gives 16x9 pixels, 1:1 gives 8x8), so a bot passing
// the option through can be checked by reading the image header.
function sizeFor(aspectRatio: string | undefined): { widthPx: number; heightPx: number } {
  const match = aspectRatio === undefined ? null : /^(\d{1,2}):(\d{1,2})$/.exec(aspectRatio);
  const width = Number(match?.[1] ?? 1);
  const height = Number(match?.[2] ?? 1);
  if (width === 0 || height === 0) {
    return { widthPx: minimumSidePx, heightPx: minimumSidePx };
  }
  const scale = Math.ceil(minimumSidePx / Math.min(width, height));
  return { widthPx: width * scale, heightPx: height * scale };
}
