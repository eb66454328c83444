import { type Span, SpanKind } from '@opentelemetry/api';
import type {
  ChatReply,
  ChatRequest,
  ChatStreamEvent,
  ChatStreamRequest,
  FinishReason,
  ToolCall,
} from '../gateway/chat-types.ts';
import { capturedInput, capturedOutput } from './captured-content.ts';
import {
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_REQUEST_MAX_TOKENS,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
} from './span-attributes.ts';
import { currentTracer, isContentCaptured, isTracingOn, markFailed } from './tracer.ts';

/** What a finished request tells its span. */
interface ChatResult {
  readonly finishReason: FinishReason;
  readonly usage: ChatReply['usage'];
  readonly responseModel?: string | undefined;
}

/** The wire's finish reasons, as `gen_ai.response.finish_reasons` records them. */
const wireFinishReasons: Record<FinishReason, string> = {
  stop: 'stop',
  length: 'length',
  'tool-calls': 'tool_calls',
  other: 'other',
};

function startChatSpan(request: ChatRequest): Span {
  const span = currentTracer().startSpan(`${GEN_AI_OPERATION_NAME_VALUE_CHAT} ${request.model}`, {
    kind: SpanKind.CLIENT,
    attributes: {
      [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_CHAT,
      [ATTR_GEN_AI_REQUEST_MODEL]: request.model,
      [ATTR_GEN_AI_REQUEST_MAX_TOKENS]: request.maxTokens,
    },
  });
  if (isContentCaptured()) span.setAttribute(ATTR_GEN_AI_INPUT_MESSAGES, capturedInput(request.messages));
  return span;
}

function recordResult(span: Span, { finishReason, usage, responseModel }: ChatResult): void {
  span.setAttribute(ATTR_GEN_AI_RESPONSE_FINISH_REASONS, [wireFinishReasons[finishReason]]);
  if (responseModel !== undefined) span.setAttribute(ATTR_GEN_AI_RESPONSE_MODEL, responseModel);
  if (usage !== undefined) {
    span.setAttribute(ATTR_GEN_AI_USAGE_INPUT_TOKENS, usage.promptTokens);
    span.setAttribute(ATTR_GEN_AI_USAGE_OUTPUT_TOKENS, usage.completionTokens);
  }
}

/** One whole gateway request as a `chat {model}` span (GenAI conventions). */
export async function traceChat(request: ChatRequest, send: () => Promise<ChatReply>): Promise<ChatReply> {
  if (!isTracingOn()) return send();
  const span = startChatSpan(request);
  try {
    const reply = await send();
    recordResult(span, reply);
    if (isContentCaptured()) {
      span.setAttribute(
        ATTR_GEN_AI_OUTPUT_MESSAGES,
        capturedOutput({ text: reply.text, finishReason: wireFinishReasons[reply.finishReason] }),
      );
    }
    return reply;
  } catch (error) {
    markFailed(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/**
 * A streamed gateway request as a `chat {model}` span: its time to the first chunk of the model's
 * writing, what it used and why it ended; a stream that breaks off (timeout, cut, Stop) ends the span
 * with error status. With tracing off the stream is returned untouched: not one call more per piece.
 */
export function traceChatStream(
  request: ChatStreamRequest,
  open: (request: ChatStreamRequest) => AsyncIterable<ChatStreamEvent>,
): AsyncIterable<ChatStreamEvent> {
  return isTracingOn() ? tracedStream(request, open) : open(request);
}

async function* tracedStream(
  request: ChatStreamRequest,
  open: (request: ChatStreamRequest) => AsyncIterable<ChatStreamEvent>,
): AsyncGenerator<ChatStreamEvent, void, undefined> {
  const span = startChatSpan(request);
  const startedAt = performance.now();
  let isFirstChunkSeen = false;
  const noteChunk = () => {
    if (isFirstChunkSeen) return;
    isFirstChunkSeen = true;
    span.setAttribute(ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK, (performance.now() - startedAt) / 1000);
  };
  const written: string[] | undefined = isContentCaptured() ? [] : undefined;
  let toolCalls: readonly ToolCall[] = [];
  let finishReason: string | undefined;
  const sink = request.onTextDelta;
  const traced: ChatStreamRequest =
    sink === undefined
      ? request
      : {
          ...request,
          onTextDelta: (text) => {
            noteChunk();
            written?.push(text);
            sink(text);
          },
        };
  try {
    for await (const event of open(traced)) {
      if (event.type === 'text-delta') {
        noteChunk();
        written?.push(event.text);
      } else if (event.type === 'tool-calls') {
        noteChunk();
        toolCalls = event.calls;
      } else if (event.type === 'finish') {
        finishReason = wireFinishReasons[event.finishReason];
        recordResult(span, event);
      }
      yield event;
    }
  } catch (error) {
    markFailed(span, error);
    throw error;
  } finally {
    if (written !== undefined) {
      span.setAttribute(
        ATTR_GEN_AI_OUTPUT_MESSAGES,
        capturedOutput({ text: written.join(''), toolCalls, finishReason }),
      );
    }
    span.end();
  }
}
