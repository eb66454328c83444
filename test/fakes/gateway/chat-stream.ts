import type { ServerResponse } from 'node:http';
import type { FakeBehaviour, Usage } from './behaviour.ts';
import { sleep, write } from './http-io.ts';
import { replyTextFor } from './reply-content.ts';
import type { ChatRequest } from './request-schemas.ts';
import { preciseNowMs, type StreamTimings } from './stream-timings.ts';
import { splitIntoChunks } from './text-chunks.ts';
import { scriptedToolCalls, type ToolCallDelta, toolCallDeltas } from './tool-calls.ts';
import { unixSeconds } from './unix-time.ts';
import { usageFor } from './usage.ts';

/** What a chunk adds: the role on the first chunk, text pieces after it, nothing on the final one. */
export interface ChunkDelta {
  role?: 'assistant';
  content?: string | null;
  tool_calls?: ToolCallDelta[];
}

/** One event of a streamed reply, as the reference lists it. */
export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: {
    index: number;
    delta: ChunkDelta;
    finish_reason: 'stop' | 'length' | 'tool_calls' | null;
  }[];
  /** Only on the final chunk. */
  usage?: Usage;
}

// Long enough that the pieces of one event leave as separate TCP segments and reach the client in
// separate reads on loopback; short enough not to slow the tests.
const pauseBetweenPiecesMs = 8;

/**
 * Streams a chat reply as Server-Sent Events: the role chunk, the content chunks, the final chunk
 * with `finish_reason` and `usage`, then `data: [DONE]`. `cutAfterChunks` ends it early by
 * destroying the socket, as a dropped connection would (or cleanly, with `endCleanlyOnCut`).
 */
export async function streamChatCompletion(options: {
  id: string;
  request: ChatRequest;
  behaviour: FakeBehaviour;
  response: ServerResponse;
  signal: AbortSignal;
  /** With `isRateSteady`: when the first event was due (`performance.now()` time); content chunks follow on schedule. */
  firstEventDueAtMs?: number;
  /** Called once the whole stream was written; not for a stream that was cut or aborted. */
  onTimings?: (timings: Omit<StreamTimings, 'request' | 'receivedAtMs'>) => void;
}): Promise<void> {
  const { id, request, behaviour, response, signal, firstEventDueAtMs, onTimings } = options;
  const text = replyTextFor(request, behaviour);
  const pieces = splitIntoChunks(text, behaviour.chunkSize);
  const created = unixSeconds();
  const chunk = (
    delta: ChunkDelta,
    finishReason: ChatCompletionChunk['choices'][number]['finish_reason'],
    usage?: Usage,
  ): ChatCompletionChunk => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model: request.model,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
    ...(usage === undefined ? {} : { usage }),
  });

  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  // Without this, Nagle's algorithm may merge the small writes the fault switches rely on.
  response.socket?.setNoDelay(true);

  const send = async (payload: string) => {
    const event = `data: ${payload}\n\n`;
    if (behaviour.splitLinesAcrossWrites === true) {
      await writeInPieces(response, event, signal);
    } else {
      await write(response, event, signal);
    }
  };
  const pauseBetweenEvents = () => sleep(behaviour.delayBetweenChunksMs ?? 0, signal);

  if (behaviour.toolCalls !== undefined) {
    // A tool-use turn: the calls stream as deltas, then finish_reason "tool_calls".
    const calls = scriptedToolCalls(request, behaviour, id);
    // Text the model writes before its calls ("Let me check that."): content deltas first, then the
    // calls, in one message (an assistant message's content is optional beside `tool_calls`, not
    // excluded by them: `ChatCompletionAssistantMessageParam.content` in the openai SDK).
    const preamble = behaviour.text;
    await send(
      JSON.stringify(chunk({ role: 'assistant', content: preamble === undefined ? null : '' }, null)),
    );
    for (const piece of preamble === undefined ? [] : splitIntoChunks(preamble, behaviour.chunkSize)) {
      await pauseBetweenEvents();
      await send(JSON.stringify(chunk({ content: piece }, null)));
    }
    for (const delta of toolCallDeltas(calls)) {
      await pauseBetweenEvents();
      await send(JSON.stringify(chunk({ tool_calls: [delta] }, null)));
    }
    const usage = usageFor({
      request,
      replyTexts: [
        ...(preamble === undefined ? [] : [preamble]),
        ...calls.map((call) => call.function.arguments),
      ],
      override: behaviour.usage,
    });
    await send(JSON.stringify(chunk({}, 'tool_calls', usage)));
    await send('[DONE]');
    response.end();
    return;
  }
  await send(JSON.stringify(chunk({ role: 'assistant', content: '' }, null)));
  if (behaviour.firstContentDelayMs !== undefined) await sleep(behaviour.firstContentDelayMs, signal);

  const cutAfterChunks = behaviour.cutAfterChunks;
  const sentPieces = cutAfterChunks === undefined ? pieces : pieces.slice(0, cutAfterChunks);
  let firstContentChunkAtMs: number | undefined;
  let lastContentChunkAtMs: number | undefined;
  if (behaviour.isRateSteady === true && behaviour.splitLinesAcrossWrites !== true) {
    const intervalMs = behaviour.delayBetweenChunksMs ?? 0;
    const startedAtMs = firstEventDueAtMs ?? performance.now();
    let nextIndex = 0;
    while (nextIndex < sentPieces.length) {
      await sleep(startedAtMs + (nextIndex + 1) * intervalMs - performance.now(), signal);
      // Every chunk due by now goes out at once, so a late timer costs no tokens per second.
      const elapsedIntervals =
        intervalMs > 0 ? Math.floor((performance.now() - startedAtMs) / intervalMs) : sentPieces.length;
      const dueCount = Math.max(1, elapsedIntervals - nextIndex);
      const due = sentPieces.slice(nextIndex, nextIndex + dueCount);
      await write(
        response,
        due.map((piece) => `data: ${JSON.stringify(chunk({ content: piece }, null))}\n\n`).join(''),
        signal,
      );
      nextIndex += due.length;
      lastContentChunkAtMs = preciseNowMs();
      firstContentChunkAtMs ??= lastContentChunkAtMs;
    }
  } else {
    for (const piece of sentPieces) {
      await pauseBetweenEvents();
      await send(JSON.stringify(chunk({ content: piece }, null)));
      lastContentChunkAtMs = preciseNowMs();
      firstContentChunkAtMs ??= lastContentChunkAtMs;
    }
  }
  if (cutAfterChunks !== undefined) {
    if (behaviour.endCleanlyOnCut === true) {
      response.end();
    } else {
      response.destroy();
    }
    return;
  }

  await pauseBetweenEvents();
  const usage = usageFor({ request, replyTexts: [text], override: behaviour.usage });
  await send(JSON.stringify(chunk({}, behaviour.finishReason ?? 'stop', usage)));
  await send('[DONE]');
  const endedAtMs = preciseNowMs();
  response.end();
  onTimings?.({
    completionId: id,
    text,
    contentChunkCount: pieces.length,
    firstContentChunkAtMs,
    lastContentChunkAtMs,
    endedAtMs,
  });
}

/**
 * Writes one event in three pieces: the first breaks the `data:` line in the middle (possibly inside
 * a multi-byte character), the second ends the line, the third is the blank line ending the event.
 */
async function writeInPieces(response: ServerResponse, event: string, signal: AbortSignal): Promise<void> {
  const bytes = Buffer.from(event, 'utf8');
  const lineEnd = bytes.length - 1;
  const middle = Math.floor(lineEnd / 2);
  const pieces = [bytes.subarray(0, middle), bytes.subarray(middle, lineEnd), bytes.subarray(lineEnd)];
  for (const [index, piece] of pieces.entries()) {
    if (index > 0) {
      await sleep(pauseBetweenPiecesMs, signal);
    }
    await write(response, piece, signal);
  }
}
