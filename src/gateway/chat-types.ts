import type { SpendHold } from '../spending/spend-hold.ts';
import type { TokenUsage } from './token-usage.ts';

// Spending reads TokenUsage from its own file, so that it need not import the chat types (which hold a SpendHold).
export type { TokenUsage } from './token-usage.ts';

/** Shapes of the chat operation as parley uses them; the wire names stay inside `gateway/`. */

export type ContentPart =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image_url'; readonly image_url: { readonly url: string } };

export interface ChatMessage {
  /**
   * The reference shows system, user and assistant; `tool` (a tool's result) belongs to function
   * calling, which it names without fields, so its shape is OpenAI's.
   */
  readonly role: 'system' | 'user' | 'assistant' | 'tool';
  readonly content: string | readonly ContentPart[];
  /** An assistant turn that called tools: the calls, each answered by a `tool` message after it. */
  readonly toolCalls?: readonly ToolCall[];
  /** A `tool` message: the call it answers. */
  readonly toolCallId?: string;
}

/** A function the model may call (OpenAI `tools[].function`). */
export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the arguments. */
  readonly parameters: Record<string, unknown>;
}

/** A call the model made: `arguments` is its JSON text, unchecked. */
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

/**
 * `length` means the token limit cut the reply, `tool-calls` that the model called tools instead of
 * answering; anything else the reference does not name is `other`.
 */
export type FinishReason = 'stop' | 'length' | 'tool-calls' | 'other';

export interface ChatRequest {
  readonly model: string;
  readonly messages: readonly ChatMessage[];
  /** `max_tokens`: always set, because the budget hold covers the prompt plus this many. */
  readonly maxTokens: number;
  /** Leave to send, from the spend guard: it covers this request before it goes out. */
  readonly hold: SpendHold;
  readonly temperature?: number;
  /** Functions offered to the model; only for models whose capabilities say `tools`. */
  readonly tools?: readonly ToolDefinition[];
  /** Aborting cancels the gateway request; the stream then ends with a `cancelled` GatewayError. */
  readonly signal?: AbortSignal;
}

/**
 * A streamed request, with an optional synchronous sink for its text. With `onTextDelta`, each piece
 * of the model's text is handed to it, in order, at the point in the stream where a `text-delta`
 * event would have been yielded, and no `text-delta` event is yielded: a reply's hundreds of pieces
 * then cost no async-iterator hop each (promise, iterator result, microtasks), measurable CPU and GC
 * at hundreds of replies at once (issue 24's profile). Every other event is still yielded.
 *
 * The sink must not throw (a throw from it ends the stream with that error, as a throw from the
 * consumer's loop would). Only the gateway client honours it: a consumer that passes it must still
 * handle `text-delta` events (a wrapper such as the tool loop drops the sink and yields events).
 */
export interface ChatStreamRequest extends ChatRequest {
  readonly onTextDelta?: (text: string) => void;
}

export interface ChatReply {
  readonly text: string;
  readonly finishReason: FinishReason;
  readonly usage: TokenUsage | undefined;
  /** Things the person should know about how the request was adjusted (e.g. images dropped). */
  readonly notices: readonly string[] /** The model that answered, as the gateway names it (it may differ from the one asked for). */;
  readonly responseModel?: string | undefined;
}

/** What a streamed reply yields, in order: notices, response-started, text deltas, then exactly one finish. */
export type ChatStreamEvent =
  | { readonly type: 'notice'; readonly message: string }
  /**
   * The gateway answered the request (its response headers arrived): what follows is the model's
   * writing, which may still take a while to start. Before it, nothing has answered at all.
   */
  | { readonly type: 'response-started' }
  | { readonly type: 'text-delta'; readonly text: string }
  /** The model called tools (all calls of the turn, arguments complete); `finish` follows. */
  | { readonly type: 'tool-calls'; readonly calls: readonly ToolCall[] }
  /** What parley is doing meanwhile ("🔎 searching: …"), for the reply to show until text arrives. */
  | { readonly type: 'status'; readonly text: string }
  /** A tool call of the reply started or ended: platforms show it natively (Slack task cards). */
  | { readonly type: 'tool-step'; readonly step: ToolStep }
  | {
      readonly type: 'finish';
      readonly finishReason: FinishReason;
      readonly usage: TokenUsage | undefined;
      /** The model that answered, as the gateway's chunks name it. */
      readonly responseModel?: string | undefined;
    };

/**
 * One step of a reply as people see it, a line or a task card on Slack: a tool call of the model,
 * or work parley does itself before the answer (`kind: 'work'`: reading the posted documents,
 * searching first).
 */
export interface ToolStep {
  /** The call's id, the same for its start and its end. */
  readonly id: string;
  /** `tool` (default): a call the model made; `work`: parley's own step, which the tool count leaves out. */
  readonly kind?: 'tool' | 'work';
  /** "🔎 searching: tides Brest". */
  readonly title: string;
  /** `waiting`: an acting tool's call waits for the asker's yes; `not-run`: it never ran (denied, unanswered). */
  readonly status: 'waiting' | 'running' | 'complete' | 'error' | 'not-run';
  /** Why it is or ended as it is, when that is worth saying ("denied by Ada", "timed out after 30 s"). */
  readonly detail?: string;
  /** Links it found (a web search's results, a page read), for Slack's task card `sources`. */
  readonly sources?: readonly { readonly title: string; readonly url: string }[];
}
