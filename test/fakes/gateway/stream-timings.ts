import type { RecordedRequest } from './request-handler.ts';

/**
 * When the pieces of one streamed reply left the fake, so a benchmark can tell the time a client
 * adds from the time the model (the fake) took. Times are epoch milliseconds with sub-millisecond
 * precision, taken when the write was handed to the socket.
 */
export interface StreamTimings {
  /** The request that asked for the stream. */
  request: RecordedRequest;
  /** The `id` of every chunk of the stream, e.g. `chatcmpl-fake-3`. */
  completionId: string;
  /** The reply text exactly as the content chunks carried it, joined. */
  text: string;
  contentChunkCount: number;
  /** When the request's body had arrived in full, before the behaviour's `latencyMs`. */
  receivedAtMs: number;
  /** `undefined` when the reply had no content chunk. */
  firstContentChunkAtMs: number | undefined;
  lastContentChunkAtMs: number | undefined;
  /** When `data: [DONE]` was written: the moment a client can know the reply is complete. */
  endedAtMs: number;
}

/** Epoch milliseconds with sub-millisecond precision; `Date.now()` would round latencies of a few ms away. */
export function preciseNowMs(): number {
  return performance.timeOrigin + performance.now();
}
