import { createParser, type EventSourceMessage, type ParseError } from 'eventsource-parser';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { GatewayError } from './gateway-error.ts';

/**
 * The most one unfinished event may hold before the stream counts as broken: a chunk is a few
 * hundred bytes, and a tool call's arguments arrive in many chunks, so a megabyte in one event is
 * a gateway gone wrong, and without a bound its memory would grow with whatever it sends.
 */
const maxEventCharacters = 1024 * 1024;

/**
 * Reads the body of a streamed chat completion (Server-Sent Events: each `data:` line one JSON
 * chunk, then `data: [DONE]`, per the gateway reference's "Events") and yields, for every network
 * read that completed any, the chunks it completed, in order. A read that brought only part of an
 * event, or only a comment (a gateway's keep-alive), yields nothing: a stream that sends nothing but
 * keep-alives is as silent to the caller's idle watch as one that sends nothing. The many chunks of
 * one read cost one await, not the four async generators per chunk of the SDK's own stream;
 * `eventsource-parser` does the SSE framing (lines split across reads, CR/LF, comments).
 *
 * Ends at `[DONE]` or at the end of the body, whichever comes first: the caller decides whether an
 * end without a finish chunk was complete. As the SDK does, a last event whose blank line never came
 * still counts when the body ends (the SSE standard would drop it, but that event is often the
 * finish chunk of a whole reply); one cut off mid-line ends the stream as interrupted. Like the
 * SDK, an event named `error` or a chunk carrying `error` ends the stream as interrupted, and data
 * that is not a JSON object as an invalid reply.
 * `signal` cancels the body, which ends the reading quietly (the caller knows why it stopped).
 * However the reading stops, the body is released: cancelled unless it had already ended.
 */
export async function* chatChunkBatches(
  body: ReadableStream<Uint8Array>,
  signal: AbortSignal,
): AsyncGenerator<readonly ChatCompletionChunk[], void, undefined> {
  const reader = body.getReader();
  const cancel = () => {
    reader.cancel(signal.reason).catch(() => undefined);
  };
  signal.addEventListener('abort', cancel, { once: true });
  if (signal.aborted) cancel();
  const decoder = new TextDecoder();
  let isDone = false;
  let isBodyEnded = false;
  let batch: ChatCompletionChunk[] = [];
  let failure: { readonly error: unknown } | undefined;
  const parser = createParser({
    maxBufferSize: maxEventCharacters,
    onEvent: (event) => {
      if (isDone || failure !== undefined) return;
      if (event.data === '[DONE]') {
        isDone = true;
        return;
      }
      try {
        batch.push(chunkOf(event));
      } catch (error) {
        failure = { error: isBodyEnded ? cutOffMidEvent(error) : error };
      }
    },
    onError: (error: ParseError) => {
      // Unknown fields are allowed by the SSE standard and ignored; an overflow is not survivable.
      if (error.type === 'max-buffer-size-exceeded' && failure === undefined) {
        failure = {
          error: new GatewayError({
            kind: 'invalid-reply',
            message: `gateway stream sent one event over ${maxEventCharacters} characters`,
          }),
        };
      }
    },
  });
  try {
    while (!isDone && !isBodyEnded) {
      const { value, done } = await reader.read();
      if (done) {
        isBodyEnded = true;
        // What is left of the last event, ended as if its blank line had come.
        parser.feed(`${decoder.decode()}\n\n`);
      } else {
        parser.feed(decoder.decode(value, { stream: true }));
      }
      // The chunks before a failure in the same read still count: the text they carry was written.
      if (batch.length > 0) {
        const chunks = batch;
        batch = [];
        yield chunks;
      }
      if (failure !== undefined) throw failure.error;
    }
  } finally {
    signal.removeEventListener('abort', cancel);
    // After [DONE] the gateway closes the stream; not waiting for that frees the reply at once.
    if (!isBodyEnded) reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

function chunkOf(event: EventSourceMessage): ChatCompletionChunk {
  let data: unknown;
  try {
    data = JSON.parse(event.data);
  } catch {
    throw new GatewayError({
      kind: 'invalid-reply',
      message: 'gateway stream sent an event that is not JSON',
    });
  }
  if (
    event.event === 'error' ||
    (typeof data === 'object' && data !== null && 'error' in data && data.error)
  ) {
    throw new GatewayError({ kind: 'stream-interrupted', message: streamErrorMessage(data) });
  }
  if (typeof data !== 'object' || data === null) {
    throw new GatewayError({
      kind: 'invalid-reply',
      message: 'gateway stream sent a chunk that is not an object',
    });
  }
  return data as ChatCompletionChunk;
}

/** A last event that does not parse once the body has ended was cut off, not wrong. */
function cutOffMidEvent(error: unknown): unknown {
  if (!(error instanceof GatewayError) || error.kind !== 'invalid-reply') return error;
  return new GatewayError({
    kind: 'stream-interrupted',
    message: 'gateway stream ended in the middle of an event',
    cause: error,
  });
}

/** The gateway's own words about a failure it sent mid-stream, for the log (never its raw payload). */
function streamErrorMessage(data: unknown): string {
  const error = typeof data === 'object' && data !== null && 'error' in data ? data.error : data;
  const message =
    typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string'
      ? error.message
      : typeof error === 'string'
        ? error
        : 'no message';
  return `gateway stream reported an error: ${message.slice(0, 300)}`;
}
