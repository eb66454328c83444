import type { StreamingWriter } from '../delivery/streaming-writer.ts';
import type {
  ChatStreamEvent,
  ChatStreamRequest,
  FinishReason,
  TokenUsage,
  ToolStep,
} from '../gateway/chat-types.ts';
import { type GatewayError, toGatewayError } from '../gateway/gateway-error.ts';
import type { Logger } from '../log.ts';
import type { SpendHold } from '../spending/spend-hold.ts';
import type { EngineDependencies } from './engine-dependencies.ts';
import type { PreparedTurn } from './prepare-turn.ts';
import type { ReplyRequest } from './reply-types.ts';
import { defaultWaitingIndicators, showWhileWaiting, type WaitingIndicator } from './waiting-indicator.ts';

/** What the model streamed: the text as the person saw it, and how the stream ended. */
export interface StreamedReply {
  /** Exactly the model text streamed to the writer. */
  readonly text: string;
  readonly finishReason: FinishReason | undefined;
  readonly usage: TokenUsage | undefined;
  readonly failure: GatewayError | undefined;
}

/** The reply as it streams: what the events have brought so far, and where they go. */
interface StreamState {
  text: string;
  finishReason: FinishReason | undefined;
  usage: TokenUsage | undefined;
  readonly writer: StreamingWriter;
  readonly waiting: WaitingIndicator;
  readonly prepared: PreparedTurn;
  readonly showStep: (step: ToolStep) => void;
}

/** Streams the gateway's reply into the writer; the writer is left open for its ending. */
export async function streamReply({
  dependencies,
  request,
  prepared,
  writer,
  hold,
  showStep,
  logger,
}: {
  dependencies: EngineDependencies;
  request: ReplyRequest;
  prepared: PreparedTurn;
  writer: StreamingWriter;
  /** The admitted reply's hold on the budgets: every call of the reply goes out on it. */
  hold: SpendHold;
  showStep: (step: ToolStep) => void;
  logger: Logger;
}): Promise<StreamedReply> {
  const { signal } = request;
  const waiting = showWhileWaiting({
    writer,
    surface: prepared.surface,
    indicators: dependencies.waiting ?? defaultWaitingIndicators,
  });
  const state: StreamState = {
    text: '',
    finishReason: undefined,
    usage: undefined,
    writer,
    waiting,
    prepared,
    showStep,
  };
  let failure: GatewayError | undefined;
  try {
    const chat: ChatStreamRequest = {
      model: prepared.model,
      messages: prepared.fit.messages,
      maxTokens: dependencies.defaults.replyMaxTokens,
      hold,
      ...(signal ? { signal } : {}),
      // The gateway's stream hands its text straight to the writer rather than as an event each
      // (no async-iterator hop per piece); where tools wrap the stream, text comes as events below.
      onTextDelta: (delta) => appendText(state, delta),
    };
    const events = replyEvents({ dependencies, request, prepared, chat });
    for await (const event of events) handleEvent(state, event);
  } catch (error) {
    failure = toGatewayError(error);
    logger[failure.kind === 'cancelled' ? 'info' : 'warn'](
      { err: failure, kind: failure.kind, model: prepared.model },
      'reply did not complete',
    );
  } finally {
    waiting.stop();
  }
  return { text: state.text, finishReason: state.finishReason, usage: state.usage, failure };
}

/**
 * The reply's events: through the tools where the place has them, so the reply's further calls
 * (tool rounds, the search decision) go out on the same hold, each covered as it is sent with the
 * tool results that grew its prompt. Without the place's settings no tool is on anywhere: the reply
 * is a plain stream.
 */
function replyEvents({
  dependencies,
  request,
  prepared,
  chat,
}: {
  dependencies: EngineDependencies;
  request: ReplyRequest;
  prepared: PreparedTurn;
  chat: ChatStreamRequest;
}): AsyncIterable<ChatStreamEvent> {
  if (!dependencies.tools || !prepared.placeSettings) return dependencies.gateway.chatStream(chat);
  const { turn } = request;
  return dependencies.tools.stream({
    chat,
    actor: turn.actor,
    settings: prepared.placeSettings,
    conversationKey: turn.conversationKey,
    isSearchForced: turn.isSearchForced === true,
    askApproval: request.askApproval,
    approvedCall: request.approvedCall,
    tellAskerPrivately: request.tellAskerPrivately,
  });
}

// Text reaches the writer as it arrives; `text` is always exactly what was appended, so a reply
// cut off midway keeps what the person saw.
function appendText(state: StreamState, delta: string): void {
  if (state.text === '') state.waiting.stop();
  state.text += delta;
  state.writer.append(delta);
}

/** One event of the stream: text to the writer, steps and statuses shown, notices kept for the end. */
function handleEvent(state: StreamState, event: ChatStreamEvent): void {
  if (event.type === 'text-delta') appendText(state, event.text);
  else if (event.type === 'notice') state.prepared.notices.push(event.message);
  else if (event.type === 'tool-step') {
    // The steps say what happens now: no typing renewals, no "still waiting" line over them.
    state.waiting.stop();
    state.showStep(event.step);
  } else if (event.type === 'response-started') state.waiting.responseStarted();
  else if (event.type === 'status') {
    if (state.text === '') state.waiting.showStatus(event.text);
    state.prepared.surface.showStatus?.(event.text).catch(() => undefined);
  } else if (event.type === 'finish') {
    state.finishReason = event.finishReason;
    state.usage = event.usage;
  }
}

/** Whether the person saw any of the reply: whitespace alone is no reply. */
export function hasVisibleText(streamed: StreamedReply): boolean {
  return /\S/.test(streamed.text);
}
