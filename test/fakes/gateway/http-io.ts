import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import type { FakeErrorBehaviour } from './behaviour.ts';
import { defaultErrorBody, GatewayError } from './gateway-error.ts';

// Data URIs of screenshots make chat bodies large; this still stops a runaway client.
const maxBodyBytes = 50 * 1024 * 1024;

/** Reads the whole request body as UTF-8 text. */
export async function readBodyText(request: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  let totalBytes = 0;
  for await (const part of request) {
    const buffer = part as Buffer;
    totalBytes += buffer.length;
    if (totalBytes > maxBodyBytes) {
      throw new GatewayError({
        status: 413,
        message: `The request body is larger than ${maxBodyBytes} bytes.`,
        type: 'invalid_request_error',
        code: 'request_too_large',
      });
    }
    parts.push(buffer);
  }
  return Buffer.concat(parts).toString('utf8');
}

/** Sends a JSON response with an exact `content-length`. */
export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}

/** Sends the OpenAI-style body of a refused request. */
export function sendGatewayError(response: ServerResponse, error: GatewayError): void {
  sendJson(response, error.status, error.toBody());
}

/** Sends a forced error: the test's body as JSON or as raw text, or a default body for the status. */
export function sendErrorBehaviour(response: ServerResponse, error: FakeErrorBehaviour): void {
  const body = error.body ?? defaultErrorBody(error.status);
  if (typeof body !== 'string') {
    sendJson(response, error.status, body, error.headers);
    return;
  }
  const contentType = body.trimStart().startsWith('<')
    ? 'text/html; charset=utf-8'
    : 'text/plain; charset=utf-8';
  response.writeHead(error.status, {
    'content-type': contentType,
    'content-length': Buffer.byteLength(body),
    ...error.headers,
  });
  response.end(body);
}

/**
 * Writes to the response and resolves once the bytes are handed to the socket, so pauses between
 * writes become separate network reads. Rejects when `signal` aborts: a client that stopped reading
 * must not keep the fake waiting.
 */
export function write(response: ServerResponse, data: string | Buffer, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    response.write(data, (error) => {
      signal.removeEventListener('abort', onAbort);
      if (error) {
        reject(error);
      } else {
        resolve();
      }
    });
  });
}

/** Waits `durationMs`, or rejects with an AbortError as soon as `signal` aborts. */
export async function sleep(durationMs: number, signal: AbortSignal): Promise<void> {
  if (durationMs > 0) {
    await delay(durationMs, undefined, { signal });
  } else {
    signal.throwIfAborted();
  }
}
