/** Shapes of the chat operation as parley uses them; the wire names stay inside `gateway/`. */

export type ContentPart =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image_url'; readonly image_url: { readonly url: string } };

export interface ChatMessage {
  /** The gateway knows only these three roles. */
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string | readonly ContentPart[];
}

export interface TokenUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly totalTokens: number;
}

/** `length` means the token limit cut the reply; anything the reference does not name is `other`. */
export type FinishReason = 'stop' | 'length' | 'other';

export interface ChatRequest {
  readonly model: string;
  readonly messages: readonly ChatMessage[];
  readonly maxTokens?: number;
  readonly temperature?: number;
  /** Aborting cancels the gateway request; the stream then ends with a `cancelled` GatewayError. */
  readonly signal?: AbortSignal;
}

export interface ChatReply {
  readonly text: string;
  readonly finishReason: FinishReason;
  readonly usage: TokenUsage | undefined;
  /** Things the person should know about how the request was adjusted (e.g. images dropped). */
  readonly notices: readonly string[];
}

/** What a streamed reply yields, in order: notices, text deltas, then exactly one finish. */
export type ChatStreamEvent =
  | { readonly type: 'notice'; readonly message: string }
  | { readonly type: 'text-delta'; readonly text: string }
  | { readonly type: 'finish'; readonly finishReason: FinishReason; readonly usage: TokenUsage | undefined };
