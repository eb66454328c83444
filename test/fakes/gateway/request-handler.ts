import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { BehaviourQueue, GatewayEndpoint } from './behaviour.ts';
import { createChatCompletion } from './chat-completion.ts';
import { streamChatCompletion } from './chat-stream.ts';
import { GatewayError, invalidRequest } from './gateway-error.ts';
import { readBodyText, sendErrorBehaviour, sendGatewayError, sendJson, sleep } from './http-io.ts';
import type { ImageFileStore } from './image-files.ts';
import { generateImages } from './image-generation.ts';
import type { ModelCatalog } from './model-catalog.ts';
import { preciseNowMs, type StreamTimings } from './stream-timings.ts';
import { validateChatRequest } from './validate-chat-request.ts';

/** One request as the fake received it, for tests to assert what the bot sent. */
export interface RecordedRequest {
  method: string;
  /** The path without the query, e.g. `/api/v1/chat/completions`. */
  path: string;
  /** Header names in lower case, as Node gives them. */
  headers: IncomingHttpHeaders;
  /** The body parsed as JSON; the raw text when it is not JSON; `undefined` when empty. */
  body: unknown;
}

/** What the handler shares with the fake that owns it. */
export interface RequestHandlerContext {
  apiKey: string;
  /** Where the fake is reachable, e.g. `http://127.0.0.1:8787`. */
  origin: string;
  catalog: ModelCatalog;
  behaviours: BehaviourQueue;
  files: ImageFileStore;
  requests: RecordedRequest[];
  /** Aborts when the fake closes, so pending pauses and streams end at once. */
  closingSignal: AbortSignal;
  onRequest: ((request: RecordedRequest) => void) | undefined;
  /** Optional: the reply text of a chat request, when the behaviour names none. */
  replyTextFor?: ((request: RecordedRequest) => string | undefined) | undefined;
  /** Optional: told when each complete stream was written. */
  onStreamTimings?: ((timings: StreamTimings) => void) | undefined;
  nextCompletionId(): string;
}

const apiPrefix = '/api/v1';
const endpointsByPath: Record<string, GatewayEndpoint> = {
  [`${apiPrefix}/chat/completions`]: 'chat',
  [`${apiPrefix}/images/generations`]: 'images',
};

/** Builds the `node:http` request listener of the fake. */
export function createRequestHandler(
  context: RequestHandlerContext,
): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    const requestEnded = new AbortController();
    response.on('close', () => requestEnded.abort(new Error('response closed')));
    const signal = AbortSignal.any([context.closingSignal, requestEnded.signal]);
    handle(context, request, response, signal).catch((error: unknown) => {
      if (signal.aborted) {
        // The client went away or the fake is closing: nothing is left to answer.
        response.destroy();
      } else if (error instanceof GatewayError && !response.headersSent) {
        sendGatewayError(response, error);
      } else {
        console.error('fake gateway: unexpected error', error);
        if (response.headersSent) {
          response.destroy();
        } else {
          sendJson(response, 500, {
            error: {
              message: `fake gateway bug: ${String(error)}`,
              type: 'server_error',
              code: null,
              param: null,
            },
          });
        }
      }
    });
  };
}

async function handle(
  context: RequestHandlerContext,
  request: IncomingMessage,
  response: ServerResponse,
  signal: AbortSignal,
): Promise<void> {
  const method = request.method ?? 'GET';
  const path = new URL(request.url ?? '/', context.origin).pathname;
  const bodyText = await readBodyText(request);
  const receivedAtMs = preciseNowMs();
  const body = parseBody(bodyText);
  const recorded: RecordedRequest = { method, path, headers: request.headers, body };
  context.requests.push(recorded);
  context.onRequest?.(recorded);

  // Image links stand in for a CDN's public URLs: they are fetched without the API key, and a bot
  // should never send its key to them.
  if (method === 'GET' && path.startsWith('/files/')) {
    serveImageFile(context, path.slice('/files/'.length), response);
    return;
  }

  assertAuthorized(request.headers.authorization, context.apiKey);
  const endpoint = method === 'POST' ? endpointsByPath[path] : undefined;
  if (endpoint === undefined) {
    throw new GatewayError({
      status: 404,
      message: `Unknown request URL: ${method} ${path}.`,
      type: 'invalid_request_error',
      code: 'unknown_url',
    });
  }

  // model-gateway-api.md, Chat completion: "`model` and `messages` are required". A chat with no
  // messages is refused before any scripted behaviour is taken, as a gateway refuses it before any
  // model runs (parley's start-up check sends one).
  if (endpoint === 'chat' && isChatWithoutMessages(body)) {
    throw invalidRequest('messages must contain at least one message.', { param: 'messages' });
  }
  const takenBehaviour = context.behaviours.take(endpoint);
  const computedText =
    endpoint === 'chat' && takenBehaviour.text === undefined ? context.replyTextFor?.(recorded) : undefined;
  const behaviour = computedText === undefined ? takenBehaviour : { ...takenBehaviour, text: computedText };
  // A steady stream keeps its schedule from the request's arrival, so a busy fake adds no latency.
  // On the `performance.now()` clock, which timers follow.
  const firstEventDueAtMs = receivedAtMs - performance.timeOrigin + (behaviour.latencyMs ?? 0);
  await sleep(
    behaviour.isRateSteady === true ? firstEventDueAtMs - performance.now() : (behaviour.latencyMs ?? 0),
    signal,
  );
  if (behaviour.error !== undefined) {
    sendErrorBehaviour(response, behaviour.error);
    return;
  }
  assertJsonBody(request.headers['content-type'], body, bodyText);

  if (endpoint === 'images') {
    const images = generateImages({
      body,
      catalog: context.catalog,
      files: context.files,
      origin: context.origin,
    });
    if (behaviour.cutAfterChunks !== undefined) {
      response.destroy();
      return;
    }
    if (behaviour.imageLinks !== undefined) {
      images.data = behaviour.imageLinks.map((url) => ({ url }));
    }
    sendJson(response, 200, images);
    return;
  }

  const chatRequest = validateChatRequest(body, context.catalog);
  const id = context.nextCompletionId();
  if (chatRequest.stream === true) {
    const onStreamTimings = context.onStreamTimings;
    await streamChatCompletion({
      id,
      request: chatRequest,
      behaviour,
      response,
      signal,
      firstEventDueAtMs,
      ...(onStreamTimings === undefined
        ? {}
        : { onTimings: (timings) => onStreamTimings({ ...timings, receivedAtMs, request: recorded }) }),
    });
  } else if (behaviour.cutAfterChunks !== undefined) {
    response.destroy();
  } else {
    sendJson(response, 200, createChatCompletion({ id, request: chatRequest, behaviour }));
  }
}

function parseBody(text: string): unknown {
  if (text === '') {
    return undefined;
  }
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function assertAuthorized(authorization: string | undefined, apiKey: string): void {
  if (authorization === undefined) {
    throw new GatewayError({
      status: 401,
      message: "You didn't provide an API key. Send it in the Authorization header as 'Bearer <API_KEY>'.",
      type: 'invalid_request_error',
      code: 'missing_api_key',
    });
  }
  const match = /^Bearer\s+(.+)$/i.exec(authorization);
  if (match?.[1] !== apiKey) {
    throw new GatewayError({
      status: 401,
      message: 'Incorrect API key provided.',
      type: 'invalid_request_error',
      code: 'invalid_api_key',
    });
  }
}

function assertJsonBody(contentType: string | undefined, body: unknown, bodyText: string): void {
  if (!contentType?.toLowerCase().startsWith('application/json')) {
    throw invalidRequest('Content-Type must be application/json.');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidRequest(
      bodyText === '' ? 'The request body is empty.' : 'We could not parse the JSON body of your request.',
    );
  }
}

function serveImageFile(context: RequestHandlerContext, fileName: string, response: ServerResponse): void {
  const image = context.files.get(fileName);
  if (image === undefined) {
    sendJson(response, 404, {
      error: { message: 'File not found.', type: 'not_found', code: null, param: null },
    });
    return;
  }
  response.writeHead(200, { 'content-type': image.contentType, 'content-length': image.bytes.length });
  response.end(image.bytes);
}

/**
 * The chat requests that reached a model: all but the ones refused for having no messages, which is
 * what parley's start-up check of the gateway sends. Tests that count answers count these.
 */
export function modelChatRequests(requests: readonly RecordedRequest[]): RecordedRequest[] {
  return requests.filter(
    (request) => request.path.endsWith('/chat/completions') && !isChatWithoutMessages(request.body),
  );
}

function isChatWithoutMessages(body: unknown): boolean {
  return (
    typeof body === 'object' &&
    body !== null &&
    Array.isArray((body as { messages?: unknown }).messages) &&
    (body as { messages: unknown[] }).messages.length === 0
  );
}
