import type OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { ResponseFormatJSONObject, ResponseFormatJSONSchema } from 'openai/resources/shared';
import { renderNotice } from '../notices/render-notice.ts';
import { recordGatewayError, recordGatewayRequest, recordTokens } from '../operations/metrics.ts';
import { traceChat } from '../tracing/gateway-spans.ts';
import type {
  ChatMessage,
  ChatReply,
  ChatRequest,
  ChatStreamEvent,
  ChatStreamRequest,
  FinishReason,
  TokenUsage,
  ToolCall,
} from './chat-types.ts';
import { type FailedRequest, GatewayError, toGatewayError } from './gateway-error.ts';
import { capabilitiesOf, type ModelCatalog } from './model-catalog.ts';
import { chatChunkBatches } from './server-sent-chunks.ts';
import { coverRequest } from './spend-cover.ts';
import { estimateCompletionTokens, estimatePromptTokens } from './token-estimate.ts';

export interface ChatCompletionsOptions {
  readonly client: OpenAI;
  readonly catalog: ModelCatalog;
  /** Longest silence allowed between two chunks of a stream before it counts as stalled. */
  readonly streamIdleTimeoutMs: number;
  /**
   * Longest wait for a streamed reply to start, per attempt: for the response to arrive and then for
   * its first chunk. Shorter than the idle timeout, so a gateway that never answers is given up on
   * (and retried) in seconds rather than minutes.
   */
  readonly firstByteTimeoutMs?: number;
}

const imagesDroppedNotice = renderNotice({ type: 'model-cannot-see' });

/** One whole reply. The SDK retries 429/5xx/connection errors (with `Retry-After`) before we see them. */
export function completeChat(
  options: ChatCompletionsOptions,
  request: ChatRequest,
  wireExtras: { readonly responseFormat?: ResponseFormatJSONSchema | ResponseFormatJSONObject } = {},
): Promise<ChatReply> {
  return traceChat(request, () => completeChatUntraced(options, request, wireExtras));
}

async function completeChatUntraced(
  options: ChatCompletionsOptions,
  request: ChatRequest,
  wireExtras: { readonly responseFormat?: ResponseFormatJSONSchema | ResponseFormatJSONObject },
): Promise<ChatReply> {
  const { messages, notices } = fitMessagesToModel(options.catalog, request);
  const covered = await coverRequest(request.hold, workOf(request, messages));
  let usage: TokenUsage | undefined;
  recordGatewayRequest({ operation: 'chat' });
  try {
    const completion = await options.client.chat.completions.create(
      {
        model: request.model,
        messages: toWireMessages(messages),
        ...(wireExtras.responseFormat ? { response_format: wireExtras.responseFormat } : {}),
        max_tokens: request.maxTokens,
        ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
      },
      request.signal ? { signal: request.signal } : {},
    );
    usage = toUsage(completion.usage);
    const choice = completion.choices?.[0];
    if (!choice || typeof choice.message?.content !== 'string') {
      throw new GatewayError({
        kind: 'invalid-reply',
        message: 'gateway reply has no choices[0].message.content',
      });
    }
    recordUsage(request.model, usage);
    return {
      text: choice.message.content,
      finishReason: toFinishReason(choice.finish_reason),
      usage,
      notices,
      responseModel: completion.model,
    };
  } catch (error) {
    throw countedFailure('chat', toGatewayError(error, chatRequestOf(options)));
  } finally {
    covered.record({ usage });
  }
}

/**
 * A streamed reply as typed events, its text to `request.onTextDelta` where given. Retries happen
 * only inside the SDK, before the response starts, so text that was already yielded is never
 * repeated. A stream that goes quiet for longer than `streamIdleTimeoutMs` is cancelled and reported
 * as a timeout.
 */
export async function* streamChat(
  options: ChatCompletionsOptions,
  request: ChatStreamRequest,
): AsyncGenerator<ChatStreamEvent, void, undefined> {
  const { onTextDelta } = request;
  const { messages, notices } = fitMessagesToModel(options.catalog, request);
  const work = workOf(request, messages);
  const covered = await coverRequest(request.hold, work);
  for (const message of notices) yield { type: 'notice', message };

  const firstByteTimeoutMs = Math.min(
    options.firstByteTimeoutMs ?? options.streamIdleTimeoutMs,
    options.streamIdleTimeoutMs,
  );
  const idle = createIdleWatch({
    timeoutMs: options.streamIdleTimeoutMs,
    firstChunkTimeoutMs: firstByteTimeoutMs,
    parentSignal: request.signal,
  });
  let finishReason: FinishReason | undefined;
  let usage: TokenUsage | undefined;
  let responseModel: string | undefined;
  const toolCalls = createToolCallCollector();
  // What the model wrote, for the hold when the gateway sends no usage (a stream cut short).
  let writtenCharacters = 0;
  // A throw from the text sink is the consumer's, as if thrown from its loop over the events: it
  // passes through as it is, not counted or reported as a gateway failure.
  let sinkFailure: { readonly error: unknown } | undefined;
  let body: ReadableStream<Uint8Array> | null = null;
  let isBodyRead = false;
  const cancelUnreadBody = () => {
    if (!isBodyRead) body?.cancel().catch(() => undefined);
  };
  recordGatewayRequest({ operation: 'chat-stream' });
  try {
    // No signal goes to the SDK: it would join ours with its own, and a joined signal re-checks its
    // sources on every chunk (measurable at hundreds of streams). The SDK makes the request (with
    // its retries, timeouts and errors); its raw response is read here, so that cancelling is
    // cancelling the body, and a request still being made when we stop is let go.
    const streamRequest = options.client.chat.completions.create(
      {
        model: request.model,
        messages: toWireMessages(messages),
        stream: true,
        ...toolsOf(request),
        max_tokens: request.maxTokens,
        ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
      },
      // Per attempt, until the response headers: the SDK retries an attempt that timed out.
      { timeout: firstByteTimeoutMs },
    );
    const response = await untilAborted(streamRequest.asResponse(), idle.signal);
    body = response.body;
    if (body === null) {
      throw new GatewayError({ kind: 'invalid-reply', message: 'gateway stream response has no body' });
    }
    // Until the reading below starts, a stop (the caller's, a timeout, a consumer that leaves at
    // `response-started`) must still let the connection go; once reading, the reader cancels it.
    idle.signal.addEventListener('abort', cancelUnreadBody, { once: true });
    idle.startWaitingForFirstChunk();
    yield { type: 'response-started' };
    isBodyRead = true;
    for await (const chunks of chatChunkBatches(body, idle.signal)) {
      idle.touch();
      for (const chunk of chunks) {
        const choice = chunk.choices?.[0];
        const text = choice?.delta?.content;
        if (typeof text === 'string' && text.length > 0) {
          writtenCharacters += text.length;
          if (onTextDelta === undefined) yield { type: 'text-delta', text };
          else {
            try {
              onTextDelta(text);
            } catch (error) {
              sinkFailure = { error };
              throw error;
            }
          }
        }
        // Most chunks carry no tool calls: no empty array to loop over for each of them. (A gateway
        // may send `null` where the reference leaves the field out.)
        const toolCallDeltas = choice?.delta?.tool_calls;
        if (toolCallDeltas !== undefined && toolCallDeltas !== null) {
          for (const delta of toolCallDeltas) {
            writtenCharacters += delta.function?.arguments?.length ?? 0;
            toolCalls.add(delta);
          }
        }
        if (choice?.finish_reason) finishReason = toFinishReason(choice.finish_reason);
        if (chunk.usage) usage = toUsage(chunk.usage);
        if (responseModel === undefined) responseModel = chunk.model;
      }
    }
  } catch (error) {
    if (sinkFailure !== undefined) throw sinkFailure.error;
    throw countedFailure(
      'chat-stream',
      idle.reasonForStop() ?? toGatewayError(error, chatRequestOf(options)),
    );
  } finally {
    idle.signal.removeEventListener('abort', cancelUnreadBody);
    cancelUnreadBody();
    idle.stop();
    covered.record({
      usage:
        usage ??
        (writtenCharacters > 0 ? estimatedUsage(work.work.promptTokens, writtenCharacters) : undefined),
    });
  }
  // An aborted body can end the SDK's iteration quietly, so the reason is checked here too.
  const stopReason = idle.reasonForStop();
  if (stopReason) throw countedFailure('chat-stream', stopReason);
  if (finishReason === undefined) {
    // The reference ends every stream with a finish chunk and [DONE]; without it the text is partial.
    throw countedFailure(
      'chat-stream',
      new GatewayError({ kind: 'stream-interrupted', message: 'stream ended without a finish_reason' }),
    );
  }
  const calls = toolCalls.calls();
  if (calls.length > 0) yield { type: 'tool-calls', calls };
  recordUsage(request.model, usage);
  yield { type: 'finish', finishReason, usage, responseModel };
}

/** The request's worst case for its spend hold: the prompt as it will be sent, plus `max_tokens`. */
function workOf(request: ChatRequest, messages: readonly ChatMessage[]) {
  return {
    model: request.model,
    work: {
      kind: 'tokens' as const,
      promptTokens: estimatePromptTokens({ messages, tools: request.tools }),
      maxCompletionTokens: request.maxTokens,
    },
  };
}

function estimatedUsage(promptTokens: number, writtenCharacters: number): TokenUsage {
  const completionTokens = estimateCompletionTokens(writtenCharacters);
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens };
}

function chatRequestOf(options: ChatCompletionsOptions): FailedRequest {
  return { method: 'POST', url: `${options.client.baseURL}/chat/completions` };
}

function countedFailure(operation: string, failure: GatewayError): GatewayError {
  recordGatewayError({ operation, kind: failure.kind });
  return failure;
}

function recordUsage(model: string, usage: TokenUsage | undefined): void {
  if (usage) recordTokens({ model, inputTokens: usage.promptTokens, outputTokens: usage.completionTokens });
}

// A model without vision gets the text of every part instead of failing the whole request.
function fitMessagesToModel(
  catalog: ModelCatalog,
  request: ChatRequest,
): { messages: readonly ChatMessage[]; notices: string[] } {
  const hasImages = request.messages.some(
    (message) =>
      typeof message.content !== 'string' && message.content.some((part) => part.type === 'image_url'),
  );
  if (!hasImages || capabilitiesOf(catalog, request.model).vision)
    return { messages: request.messages, notices: [] };
  const messages = request.messages.map((message) =>
    typeof message.content === 'string'
      ? message
      : {
          ...message,
          content: message.content
            .map((part) => (part.type === 'text' ? part.text : '[an image was attached]'))
            .join('\n'),
        },
  );
  return { messages, notices: [imagesDroppedNotice] };
}

// Function calling in the OpenAI shape (the reference names the feature without its fields).
function toolsOf(request: ChatRequest): { tools?: ChatCompletionTool[] } {
  if (!request.tools || request.tools.length === 0) return {};
  return {
    tools: request.tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    })),
  };
}

/** Joins streamed `delta.tool_calls` pieces by `index`: the first names the call, the rest add arguments. */
function createToolCallCollector(): {
  add(delta: { index: number; id?: string; function?: { name?: string; arguments?: string } }): void;
  calls(): ToolCall[];
} {
  const byIndex = new Map<number, { id: string; name: string; arguments: string }>();
  return {
    add(delta) {
      const call = byIndex.get(delta.index) ?? { id: '', name: '', arguments: '' };
      byIndex.set(delta.index, {
        id: delta.id ?? call.id,
        name: call.name + (delta.function?.name ?? ''),
        arguments: call.arguments + (delta.function?.arguments ?? ''),
      });
    },
    calls: () =>
      [...byIndex.entries()]
        .sort(([left], [right]) => left - right)
        .map(([, call]) => call)
        .filter((call) => call.name !== ''),
  };
}

function toWireMessages(messages: readonly ChatMessage[]): ChatCompletionMessageParam[] {
  return messages.map((message) => {
    if (message.role === 'tool') {
      return {
        role: 'tool',
        tool_call_id: message.toolCallId ?? '',
        content: textOfContent(message.content),
      };
    }
    if (message.role === 'assistant' && message.toolCalls && message.toolCalls.length > 0) {
      const text = textOfContent(message.content);
      return {
        role: 'assistant',
        content: text === '' ? null : text,
        tool_calls: message.toolCalls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: call.arguments },
        })),
      };
    }
    if (message.role === 'user') {
      return {
        role: 'user',
        content:
          typeof message.content === 'string'
            ? message.content
            : message.content.map((part) => ({ ...part })),
      };
    }
    return { role: message.role, content: textOfContent(message.content) };
  });
}

function textOfContent(content: ChatMessage['content']): string {
  return typeof content === 'string'
    ? content
    : content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

function toFinishReason(reason: string | null | undefined): FinishReason {
  if (reason === 'stop' || reason === 'length') return reason;
  if (reason === 'tool_calls') return 'tool-calls';
  return 'other';
}

function toUsage(
  usage: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number } | null | undefined,
): TokenUsage | undefined {
  if (!usage) return undefined;
  const promptTokens = usage.prompt_tokens ?? 0;
  const completionTokens = usage.completion_tokens ?? 0;
  return {
    promptTokens,
    completionTokens,
    totalTokens: usage.total_tokens ?? promptTokens + completionTokens,
  };
}

/** Settles with the response, or rejects as soon as `signal` aborts; an abandoned body is cancelled. */
async function untilAborted(request: Promise<Response>, signal: AbortSignal): Promise<Response> {
  const cancelWhenItArrives = () =>
    request.then(
      (response) => response.body?.cancel().catch(() => undefined),
      () => undefined,
    );
  if (signal.aborted) {
    cancelWhenItArrives();
    throw new DOMException('aborted', 'AbortError');
  }
  return new Promise<Response>((resolve, reject) => {
    const onAbort = () => {
      cancelWhenItArrives();
      reject(new DOMException('aborted', 'AbortError'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    request.then(
      (response) => {
        signal.removeEventListener('abort', onAbort);
        resolve(response);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

interface IdleWatch {
  readonly signal: AbortSignal;
  /** The response arrived: its first chunk must follow within the first-chunk timeout. */
  startWaitingForFirstChunk(): void;
  touch(): void;
  stop(): void;
  /** Why the stream was stopped from our side (caller's abort or idle timeout), if it was. */
  reasonForStop(): GatewayError | undefined;
}

function createIdleWatch({
  timeoutMs,
  firstChunkTimeoutMs,
  parentSignal,
}: {
  timeoutMs: number;
  firstChunkTimeoutMs: number;
  parentSignal: AbortSignal | undefined;
}): IdleWatch {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let lastActivityMs = 0;
  let hasTimedOut = false;
  let timedOutAfterMs = timeoutMs;
  const forwardAbort = () => controller.abort(parentSignal?.reason);
  if (parentSignal?.aborted) forwardAbort();
  parentSignal?.addEventListener('abort', forwardAbort, { once: true });
  // One timer per stream, re-armed only when it fires: a chunk merely notes the time, because
  // re-creating a timer for each of thousands of chunks a second is measurable CPU under load.
  const check = () => {
    const quietMs = Date.now() - lastActivityMs;
    if (quietMs >= timeoutMs) {
      hasTimedOut = true;
      controller.abort(new Error('stream idle timeout'));
      return;
    }
    timer = setTimeout(check, timeoutMs - quietMs);
  };
  return {
    signal: controller.signal,
    startWaitingForFirstChunk() {
      timer = setTimeout(() => {
        if (lastActivityMs !== 0) return;
        hasTimedOut = true;
        timedOutAfterMs = firstChunkTimeoutMs;
        controller.abort(new Error('no first chunk in time'));
      }, firstChunkTimeoutMs);
    },
    touch() {
      if (lastActivityMs === 0) {
        clearTimeout(timer);
        timer = undefined;
      }
      lastActivityMs = Date.now();
      if (timer === undefined) timer = setTimeout(check, timeoutMs);
    },
    stop() {
      clearTimeout(timer);
      parentSignal?.removeEventListener('abort', forwardAbort);
    },
    reasonForStop() {
      if (hasTimedOut)
        return new GatewayError({ kind: 'timeout', message: `stream idle for ${timedOutAfterMs} ms` });
      if (parentSignal?.aborted) {
        return new GatewayError({ kind: 'cancelled', message: 'stream cancelled by the caller' });
      }
      return undefined;
    },
  };
}
