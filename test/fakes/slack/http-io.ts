import type { IncomingMessage, ServerResponse } from 'node:http';

// Uploaded files and screenshots make bodies large; this still stops a runaway client.
const maxBodyBytes = 100 * 1024 * 1024;

/** Reads the whole request body. */
export async function readBodyBytes(request: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  let totalBytes = 0;
  for await (const part of request) {
    const buffer = part as Buffer;
    totalBytes += buffer.length;
    if (totalBytes > maxBodyBytes) {
      throw new Error(`fake slack: request body larger than ${maxBodyBytes} bytes`);
    }
    parts.push(buffer);
  }
  return Buffer.concat(parts);
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
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}

/** Sends text or bytes with the given content type. */
export function sendBody(
  response: ServerResponse,
  status: number,
  contentType: string,
  body: string | Buffer,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, {
    'content-type': contentType,
    'content-length': Buffer.byteLength(body),
    ...headers,
  });
  response.end(body);
}

/** The path of a request without its query. */
export function pathOf(request: IncomingMessage): string {
  return new URL(request.url ?? '/', 'http://fake').pathname;
}
