import { Readable } from 'node:stream';
import type { FetchedResponse } from './guarded-fetch.ts';

/** Statuses whose response has no body (fetch's `Response` refuses one). */
const nullBodyStatuses = new Set([101, 204, 205, 304]);

/**
 * The guarded fetch's answer as a WHATWG `Response`, for libraries that take a fetch of their own
 * (the MCP SDK's transports and its OAuth client): the body streams through, and a status or
 * method that has no body gets none (its stream is cancelled so the socket is freed).
 */
export async function toWebResponse({
  response,
  method,
}: {
  response: FetchedResponse;
  method: string;
}): Promise<Response> {
  const headers = new Headers();
  for (const [name, value] of response.headers.entries()) headers.append(name, value);
  const hasBody = !nullBodyStatuses.has(response.status) && method !== 'HEAD';
  if (!hasBody) await response.body.cancel();
  return new Response(
    hasBody ? (Readable.toWeb(response.body as unknown as Readable) as ReadableStream<Uint8Array>) : null,
    { status: response.status, headers },
  );
}
