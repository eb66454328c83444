/** The two operations of the Model Gateway API that the fake serves. */
export type GatewayEndpoint = 'chat' | 'images';

/** Token counts as the gateway reports them in `usage`. */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** A forced error response, sent instead of a normal reply. */
export interface FakeErrorBehaviour {
  /** HTTP status code, e.g. 429, 500, 502. */
  status: number;
  /**
   * The response body. An object is sent as JSON; a string is sent as is (an HTML error page from a
   * proxy, say). Without it the fake sends an OpenAI-style `{error:{message,type,code}}` for the status.
   */
  body?: object | string;
  /** Extra response headers, e.g. `{ 'retry-after': '2' }`. */
  headers?: Record<string, string>;
}

/**
 * How the fake answers one request. Every field is optional; a queued behaviour is laid over the
 * default, so a test only names what it changes.
 */
export interface FakeBehaviour {
  /** Which endpoint this behaviour is for; without it the next request to either endpoint takes it. */
  endpoint?: GatewayEndpoint;
  /** The reply text. Default: a deterministic reply quoting the last user text (or JSON in JSON modes). */
  text?: string;
  /** Characters per streamed content chunk. Default: three words a chunk. */
  chunkSize?: number;
  /** Pause between two streamed events. */
  delayBetweenChunksMs?: number;
  /**
   * Treat `delayBetweenChunksMs` as a steady rate instead of a pause: content chunk k is due k
   * intervals after the stream starts, and chunks that fell behind (a busy event loop, a late timer)
   * leave together in one write. A benchmark then gets the token rate it asked for, where pauses
   * would add every timer's lateness to the stream's length.
   */
  isRateSteady?: boolean;
  /** Pause before the response headers are sent: a gateway that has not answered at all. */
  latencyMs?: number;
  /**
   * On a stream, pause after the headers and the opening role chunk, before the first content: the
   * gateway took the request and the model is slow to start writing (its time to first token).
   */
  firstContentDelayMs?: number;
  /** Write each SSE event in three pieces with pauses between, so a client must buffer partial lines. */
  splitLinesAcrossWrites?: boolean;
  /**
   * Destroy the socket after this many content chunks: no final chunk, no `[DONE]`. On a request
   * that does not stream, the socket is destroyed before any response is sent.
   */
  cutAfterChunks?: number;
  /**
   * With `cutAfterChunks` on a stream: end the response properly instead of destroying the socket.
   * The `openai` SDK then stops iterating without any error, so only the missing final chunk tells
   * a client that the reply is incomplete.
   */
  endCleanlyOnCut?: boolean;
  /** The `finish_reason` of the reply. Default `stop`. */
  finishReason?: 'stop' | 'length';
  /**
   * Answer with calls of these tools instead of text (`finish_reason: "tool_calls"`), streamed as
   * `delta.tool_calls` pieces; each must be a tool the request offered. A scripted tool-use turn is
   * this behaviour followed by one with the `text` of the answer. With `text` as well, that text is
   * what the model writes before its calls, streamed first (content beside `tool_calls` in one
   * assistant message, as the openai SDK's `ChatCompletionAssistantMessageParam` allows).
   */
  toolCalls?: readonly { name: string; arguments: unknown }[];
  /**
   * Lets `toolCalls` name tools the request did not offer: a model may call one it saw earlier in
   * the conversation, or one it made up (the API does not hold its calls to the list unless strict
   * structured outputs are asked for, which parley does not). Off by default, so a test's slip is loud.
   */
  callsToolsNotOffered?: boolean;
  /** Answer with this error instead of a reply. */
  error?: FakeErrorBehaviour;
  /** Reply with content that is not valid JSON, whatever `response_format` asked for. */
  invalidJson?: boolean;
  /** Replaces fields of the computed `usage`; a missing `total_tokens` is recomputed. */
  usage?: Partial<Usage>;
  /**
   * Images: answer `url` items with these links instead of the fake's own files, as a gateway (or
   * something in its place) whose links lead elsewhere would.
   */
  imageLinks?: readonly string[];
}

/** The per-request switches: a FIFO queue of one-shot behaviours over a default per endpoint. */
export interface BehaviourQueue {
  enqueue(behaviour: FakeBehaviour): void;
  setDefault(behaviour: FakeBehaviour): void;
  /** Removes and returns the behaviour for the next request to `endpoint`, laid over the default. */
  take(endpoint: GatewayEndpoint): FakeBehaviour;
  reset(): void;
}

const endpoints: readonly GatewayEndpoint[] = ['chat', 'images'];

/** Creates the queue; `initialDefault` is what `reset()` returns to. */
export function createBehaviourQueue(initialDefault: FakeBehaviour = {}): BehaviourQueue {
  const queued: FakeBehaviour[] = [];
  const defaults = new Map<GatewayEndpoint, FakeBehaviour>();

  function setDefault(behaviour: FakeBehaviour): void {
    for (const endpoint of endpoints) {
      if (behaviour.endpoint === undefined || behaviour.endpoint === endpoint) {
        defaults.set(endpoint, behaviour);
      }
    }
  }

  function reset(): void {
    queued.length = 0;
    defaults.clear();
    setDefault(initialDefault);
  }

  reset();

  return {
    enqueue(behaviour) {
      queued.push(behaviour);
    },
    setDefault,
    take(endpoint) {
      const index = queued.findIndex((entry) => entry.endpoint === undefined || entry.endpoint === endpoint);
      const next = index === -1 ? {} : (queued.splice(index, 1)[0] ?? {});
      return { ...defaults.get(endpoint), ...next };
    },
    reset,
  };
}
