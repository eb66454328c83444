import type { PlaceSettings } from '../administration/place-settings.ts';
import type { Action } from '../delivery/card.ts';
import type { DeliveredReply } from '../delivery/streaming-writer.ts';
import type { Surface } from '../delivery/surface.ts';
import type { FinishReason, TokenUsage, ToolCall } from '../gateway/chat-types.ts';
import type { GatewayError } from '../gateway/gateway-error.ts';
import type { AskApproval } from '../tools/tool-loop.ts';
import type { DocumentReference, IncomingTurn } from './turn.ts';

// A reply's request and its outcome, in a file of their own: every step of the reply
// (prepare-turn.ts to end-reply.ts) and every importer of engine.ts shares them, and engine.ts
// imports the steps, so they cannot live there without a circle.

/** How a reply ended: `complete`, `cut` (some text shown, then an error or Stop), or `failed` (no text). */
export type ReplyStatus = 'complete' | 'cut' | 'failed';

/** What became of a reply: how it ended, what the person was shown, and what it used. */
export interface ReplyOutcome {
  readonly status: ReplyStatus;
  readonly delivered: DeliveredReply;
  readonly model: string;
  readonly finishReason: FinishReason | undefined;
  readonly usage: TokenUsage | undefined;
  /** The gateway error behind a `cut` or `failed` reply. */
  readonly error: GatewayError | undefined;
  /** `createdAt` of the assistant turn recorded in history, when one was. */
  readonly recordedAt?: string | undefined;
  /** The turn's images as the model got them (`data:` URIs), so Regenerate can send them again. */
  readonly imageDataUris?: readonly string[];
  /** The turn's documents as kept, so Regenerate reads them from the store again. */
  readonly documents?: readonly DocumentReference[];
}

/** One turn to answer, where to answer it, and what the reply may offer and do. */
export interface ReplyRequest {
  readonly turn: IncomingTurn;
  readonly surface: Surface;
  /** Aborting stops the reply (the Stop action); the text so far stays and is recorded. */
  readonly signal?: AbortSignal;
  /**
   * Regenerate: the `createdAt` of the assistant turn this reply replaces. When that turn is still
   * the last one, it and the user turn before it leave the context and are replaced in history;
   * otherwise the new reply is simply added at the end.
   */
  readonly replacesReplyCreatedAt?: string;
  /** The reply's buttons, where the place shows buttons; none otherwise. */
  readonly actions?: ReplyActions;
  /** Asks the asker before a tool that acts on the world runs; absent: such tools are not run. */
  readonly askApproval?: AskApproval;
  /**
   * A tool call the asker approved under its question: the reply runs it first (if the tool is
   * still theirs to use here) and the model goes on from its result.
   */
  readonly approvedCall?: ToolCall;
  /** Tells only the asker (a connector's Connect link); absent where the place cannot. */
  readonly tellAskerPrivately?: (text: string) => Promise<void>;
  /**
   * The place's settings as the door read them for this turn (issue 39: a turn's facts are read once
   * and passed down); absent, the engine reads them.
   */
  readonly placeSettings?: PlaceSettings;
}

/**
 * The buttons of a reply. They travel with its text: the streaming ones with its first post, the
 * ending ones with its last write, which the engine makes only once it has asked for them.
 */
export interface ReplyActions {
  /** Under the newest message while the reply streams (Stop). */
  readonly whileStreaming: readonly Action[];
  /**
   * Asked before the reply's last write: the buttons the reply keeps (Regenerate, Continue). When
   * this fails the reply ends without buttons (and loses Stop), and the error is logged.
   */
  atEnd(ending: ReplyEnding): Promise<readonly Action[]>;
}

/** What the ending buttons of a reply need to know: enough to ask for it again, and how it went. */
export interface ReplyEnding {
  /** How the reply ended, as far as the model goes (the last write is still to come). */
  readonly status: ReplyStatus;
  readonly finishReason: FinishReason | undefined;
  /** `createdAt` of the assistant turn recorded in history, when one was. */
  readonly recordedAt: string | undefined;
  /** The turn's images as the model got them (`data:` URIs). */
  readonly imageDataUris: readonly string[];
  /** The turn's documents as kept. */
  readonly documents: readonly DocumentReference[];
}
