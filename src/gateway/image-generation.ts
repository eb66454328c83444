import type OpenAI from 'openai';
import { detectImageType, type ImageMimeType } from '../images/image-type.ts';
import { readBoundedBody } from '../images/read-bounded-body.ts';
import { BlockedUrlError, describeRefusal, guardedFetch } from '../net/guarded-fetch.ts';
import type { UrlPolicy } from '../net/url-policy.ts';
import { renderNotice } from '../notices/render-notice.ts';
import { recordGatewayError, recordGatewayRequest, recordImagesGenerated } from '../operations/metrics.ts';
import type { SpendHold } from '../spending/spend-hold.ts';
import { GatewayError, toGatewayError } from './gateway-error.ts';
import { capabilitiesOf, type ModelCatalog } from './model-catalog.ts';
import { coverRequest } from './spend-cover.ts';

export interface ImageRequest {
  readonly model: string;
  readonly prompt: string;
  /** How many images (`n`). */
  readonly count: number;
  /** e.g. `1:1`, `16:9`, `4:3`, `match_input_image`. */
  readonly aspectRatio?: string;
  readonly outputFormat?: 'png' | 'jpg';
  /** Links (or `data:` URIs) of reference images, sent as `image_input`. */
  readonly referenceImages?: readonly string[];
  /** Leave to send, from the spend guard: it covers the images before the request goes out. */
  readonly hold: SpendHold;
  readonly signal?: AbortSignal;
}

export interface GeneratedImage {
  readonly bytes: Uint8Array;
  readonly mimeType: ImageMimeType;
  /** The gateway's link to the image, when it answered with one: usable as a later `image_input`. */
  readonly sourceUrl?: string;
}

export interface ImageResult {
  readonly images: readonly GeneratedImage[];
  /** What was left out of the request because the model does not support it, in words for a person. */
  readonly notices: readonly string[];
}

export interface ImageGenerationOptions {
  readonly client: OpenAI;
  readonly catalog: ModelCatalog;
  /** Image models can take minutes; this is the whole request, generation included. */
  readonly requestTimeoutMs: number;
  readonly downloadTimeoutMs: number;
  readonly maxDownloadBytes: number;
  /** Where the gateway's image links may lead (see `gatewayImagePolicy`). */
  readonly imageUrlPolicy: UrlPolicy;
}

/**
 * Where a generated image's link may lead: the gateway's own origin (`GATEWAY_BASE_URL`, trusted as
 * the operator configured it), and otherwise the hosts of `IMAGE_URL_HOSTS`, or any host when that is
 * empty; never a private, loopback or link-local address, whatever the link says.
 */
export function gatewayImagePolicy({
  baseUrl,
  imageUrlHosts,
}: {
  baseUrl: string;
  imageUrlHosts: readonly string[];
}): UrlPolicy {
  return {
    purpose: 'generated image',
    allowedHosts: imageUrlHosts.length > 0 ? imageUrlHosts : undefined,
    trustedOrigins: [new URL(baseUrl).origin],
    requiresHttps: false,
  };
}

interface WireImageRequest {
  model: string;
  prompt: string;
  n: number;
  response_format?: 'url';
  image_input?: string[];
  aspect_ratio?: string;
  output_format?: 'png' | 'jpg';
}

/**
 * Generates images and returns their bytes, whether the gateway answered `b64_json` or `url`.
 * Parameters the model cannot take are left out before the request, each with a notice.
 */
export async function generateImages(
  options: ImageGenerationOptions,
  request: ImageRequest,
): Promise<ImageResult> {
  const { body, notices } = toWireRequest(options.catalog, request);
  const covered = await coverRequest(request.hold, {
    model: request.model,
    work: {
      kind: 'images',
      count: request.count,
      aspectRatio: request.aspectRatio,
      outputFormat: request.outputFormat,
    },
  });
  try {
    const images = await requestImages(options, request, body);
    covered.record({ images: images.length });
    return { images, notices };
  } finally {
    covered.record({});
  }
}

async function requestImages(
  options: ImageGenerationOptions,
  request: ImageRequest,
  body: WireImageRequest,
): Promise<GeneratedImage[]> {
  let response: { data?: Array<{ b64_json?: string | null; url?: string | null }> | null };
  recordGatewayRequest({ operation: 'images' });
  try {
    // The reference's image parameters (`image_input`, `aspect_ratio`, `output_format`) are not in the
    // SDK's types, so the body goes through the SDK's generic POST, which keeps its retries and errors.
    // No automatic retries: a generation that timed out or failed upstream may still be billed, and
    // drawing it again behind the person's back would bill it twice.
    response = await options.client.post('/images/generations', {
      body,
      maxRetries: 0,
      timeout: options.requestTimeoutMs,
      ...(request.signal ? { signal: request.signal } : {}),
    });
  } catch (error) {
    const failure = toGatewayError(error, {
      method: 'POST',
      url: `${options.client.baseURL}/images/generations`,
    });
    recordGatewayError({ operation: 'images', kind: failure.kind });
    throw failure;
  }
  const items = Array.isArray(response?.data) ? response.data : [];
  if (items.length === 0) {
    throw new GatewayError({ kind: 'invalid-reply', message: 'image response has no data items' });
  }
  // A gateway that answers more images than asked for must not push a message past its file limit.
  const images = await Promise.all(
    items.slice(0, request.count).map((item) => readImage(options, item, request.signal)),
  );
  recordImagesGenerated({ model: request.model, count: images.length });
  return images;
}

function toWireRequest(
  catalog: ModelCatalog,
  request: ImageRequest,
): { body: WireImageRequest; notices: string[] } {
  const capabilities = capabilitiesOf(catalog, request.model);
  const notices: string[] = [];
  const body: WireImageRequest = { model: request.model, prompt: request.prompt, n: request.count };
  if (capabilities.imageUrlOutput) body.response_format = 'url';
  if (request.outputFormat) body.output_format = request.outputFormat;
  if (request.aspectRatio) {
    if (capabilities.aspectRatio) body.aspect_ratio = request.aspectRatio;
    else
      notices.push(
        renderNotice({ type: 'image-option-unsupported', model: request.model, option: 'aspect-ratio' }),
      );
  }
  if (request.referenceImages && request.referenceImages.length > 0) {
    if (capabilities.imageInput) body.image_input = [...request.referenceImages];
    else
      notices.push(
        renderNotice({ type: 'image-option-unsupported', model: request.model, option: 'reference-image' }),
      );
  }
  return { body, notices };
}

async function readImage(
  options: ImageGenerationOptions,
  item: { b64_json?: string | null; url?: string | null },
  signal: AbortSignal | undefined,
): Promise<GeneratedImage> {
  let bytes: Uint8Array;
  let sourceUrl: string | undefined;
  if (typeof item.b64_json === 'string' && item.b64_json.length > 0) {
    bytes = Buffer.from(item.b64_json, 'base64');
  } else if (typeof item.url === 'string' && item.url.length > 0) {
    bytes = await download(options, item.url, signal);
    sourceUrl = item.url;
  } else {
    throw new GatewayError({ kind: 'invalid-reply', message: 'image item has neither b64_json nor url' });
  }
  const mimeType = detectImageType(bytes);
  if (!mimeType) {
    throw new GatewayError({
      kind: 'invalid-reply',
      message: `generated image is not png/jpeg/gif/webp (${bytes.length} bytes)`,
    });
  }
  return { bytes, mimeType, ...(sourceUrl ? { sourceUrl } : {}) };
}

async function download(
  options: ImageGenerationOptions,
  url: string,
  signal: AbortSignal | undefined,
): Promise<Uint8Array> {
  let response: Awaited<ReturnType<typeof guardedFetch>>['response'];
  try {
    ({ response } = await guardedFetch({
      url,
      policy: options.imageUrlPolicy,
      timeoutMs: options.downloadTimeoutMs,
      ...(signal ? { signal } : {}),
    }));
  } catch (error) {
    if (error instanceof BlockedUrlError) {
      throw new GatewayError({
        kind: 'invalid-reply',
        message: `generated image link refused: ${error.message}`,
        userMessage: `The image service sent a link I do not download from (${describeRefusal(error)}), so I cannot show the image.`,
        cause: error,
      });
    }
    throw toGatewayError(error);
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new GatewayError({
      kind: 'server-error',
      message: `image download answered ${response.status}`,
      status: response.status,
    });
  }
  return readBoundedBody({
    response,
    maxBytes: options.maxDownloadBytes,
    tooBig: () =>
      new GatewayError({ kind: 'invalid-reply', message: 'generated image is over the download limit' }),
  });
}
