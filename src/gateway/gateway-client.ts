import OpenAI from 'openai';
import type { z } from 'zod';
import type { Logger } from '../log.ts';
import { traceChatStream } from '../tracing/gateway-spans.ts';
import { completeChat, streamChat } from './chat-completions.ts';
import type { ChatReply, ChatRequest, ChatStreamEvent, ChatStreamRequest } from './chat-types.ts';
import {
  gatewayImagePolicy,
  generateImages,
  type ImageRequest,
  type ImageResult,
} from './image-generation.ts';
import { capabilitiesOf, type ModelCapabilities, type ModelCatalog } from './model-catalog.ts';
import { generateStructured, type StructuredReply, type StructuredRequest } from './structured-output.ts';

/** Everything parley asks of the Model Gateway. Every method throws only `GatewayError`. */
export interface Gateway {
  chat(request: ChatRequest): Promise<ChatReply>;
  /** With `request.onTextDelta`, the text goes to it instead of `text-delta` events. */
  chatStream(request: ChatStreamRequest): AsyncIterable<ChatStreamEvent>;
  generateStructured<Schema extends z.ZodType>(
    request: StructuredRequest<Schema>,
  ): Promise<StructuredReply<z.output<Schema>>>;
  generateImages(request: ImageRequest): Promise<ImageResult>;
  capabilitiesOf(model: string): ModelCapabilities;
}

export interface CreateGatewayOptions {
  readonly baseUrl: string;
  readonly apiKey: string;
  /** Per attempt, until the response starts; also the longest silence allowed inside a stream. */
  readonly timeoutMs: number;
  /** Per attempt of a streamed reply, until its first chunk (see `ChatCompletionsOptions`). */
  readonly firstByteTimeoutMs?: number;
  /** Retries of 408/409/429/5xx and connection errors, done by the SDK before any text arrives. */
  readonly maxRetries: number;
  readonly catalog: ModelCatalog;
  readonly logger: Logger;
  /** Largest generated image parley will download when the gateway answers with a link. */
  readonly maxImageBytes: number;
  /** Longest an image generation may take. */
  readonly imageTimeoutMs: number;
  /** Hosts the gateway's image links may name (`IMAGE_URL_HOSTS`); empty: any public host. */
  readonly imageUrlHosts?: readonly string[];
}

export function createGateway(options: CreateGatewayOptions): Gateway {
  const gatewayLogger = options.logger.child({ component: 'gateway' });
  const client = new OpenAI({
    baseURL: options.baseUrl,
    apiKey: options.apiKey,
    timeout: options.timeoutMs,
    maxRetries: options.maxRetries,
    // The SDK's own logger prints request options; route its warnings through ours, where the key is scrubbed.
    logger: {
      error: (message, ...rest) => gatewayLogger.error({ sdk: rest }, String(message)),
      warn: (message, ...rest) => gatewayLogger.warn({ sdk: rest }, String(message)),
      info: (message, ...rest) => gatewayLogger.debug({ sdk: rest }, String(message)),
      debug: (message, ...rest) => gatewayLogger.trace({ sdk: rest }, String(message)),
    },
  });
  const chatOptions = {
    client,
    catalog: options.catalog,
    streamIdleTimeoutMs: options.timeoutMs,
    ...(options.firstByteTimeoutMs === undefined ? {} : { firstByteTimeoutMs: options.firstByteTimeoutMs }),
  };
  const imageOptions = {
    client,
    catalog: options.catalog,
    requestTimeoutMs: options.imageTimeoutMs,
    downloadTimeoutMs: options.timeoutMs,
    maxDownloadBytes: options.maxImageBytes,
    imageUrlPolicy: gatewayImagePolicy({
      baseUrl: options.baseUrl,
      imageUrlHosts: options.imageUrlHosts ?? [],
    }),
  };
  return {
    chat: (request) => completeChat(chatOptions, request),
    chatStream: (request) => traceChatStream(request, (traced) => streamChat(chatOptions, traced)),
    generateStructured: (request) => generateStructured(chatOptions, request),
    generateImages: (request) => generateImages(imageOptions, request),
    capabilitiesOf: (model) => capabilitiesOf(options.catalog, model),
  };
}
