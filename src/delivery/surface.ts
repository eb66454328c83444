import type { ToolStep } from '../gateway/chat-types.ts';
import type { Action } from './card.ts';

/**
 * A Surface is one place a reply can be written to: a Discord channel or interaction, a Slack thread,
 * the terminal. Adapters implement it; `delivery/` drives it. A capability the platform lacks is an
 * optional method, and delivery supplies the fallback.
 */
export interface Surface {
  readonly limits: SurfaceLimits;
  /**
   * Where this surface writes, in the platform's terms (JSON), so the messages of a reply can be
   * reached again after a restart. A surface without one (the terminal) is not journaled.
   */
  readonly address?: { readonly platform: string; readonly [detail: string]: unknown };
  /**
   * Posts a new message and returns its platform id; `actions` become buttons under it (a native
   * stream that cannot carry them shows them once it ends).
   */
  post(text: string, options?: PostOptions): Promise<PostedMessage>;
  /**
   * Posts a message beside the reply rather than as a part of it (an acting tool's Approve / Deny
   * question): it neither ends nor follows the message being written, which on Slack may be a native
   * stream that cannot take more text once stopped. `edit` changes it like any message. Without it,
   * such a message is `post`ed.
   */
  postAside?(text: string, options?: Pick<PostOptions, 'actions'>): Promise<PostedMessage>;
  /** Replaces the whole text of a message this surface posted, and its buttons when `actions` is given. */
  edit(message: PostedMessage, text: string, options?: EditOptions): Promise<void>;
  /**
   * Makes one call of this surface when the platform's budget allows (the adapter's outbound queue),
   * running `run` at that moment, so whatever `run` reads (the text of the moment) is current when
   * the call really goes out. Without it the call is made at once.
   */
  enqueue?<Result>(call: SurfaceCall, run: () => Promise<Result>): Promise<Result>;
  /**
   * The platform's own streaming (Slack's chat.startStream): a capability, optional. Answers
   * `not-available` when it cannot stream here and now (no thread, the budget for starting streams
   * is spent, the workspace refused it), and delivery posts and edits instead.
   */
  stream?(text: string, options?: PostOptions): Promise<PostedMessage | 'not-available'>;
  /**
   * Asked once, when the reply first has model text to post: how long that post may wait for the
   * reply to end. Where edits are scarce (a Slack workspace with many replies at once), a short reply
   * posted whole costs one call, while one posted early waits its turn for the edit that finishes
   * it. The post goes the moment the reply ends; a waiting line is never held. From this call on the
   * surface may count the reply as writing. Without it: 0.
   */
  holdFirstPost?(): number;
  /**
   * Where posts are plentiful though edits are scarce (Slack: `chat.postMessage` counts per channel,
   * `chat.update` per workspace), a reply whose first post `holdFirstPost` would hold does not stay
   * silent: once its text has been ready this many milliseconds, what it has goes out as a message
   * of its own with its final text (cut after a word, outside code, links and tables), and the rest
   * follows as the next message, held as the first post would have been, so it usually goes out
   * whole when the reply ends. The messages join to exactly the reply. Without it the post is held.
   */
  readonly earlyPartDelayMs?: number;
  /**
   * The text a message of this surface shows now, read back from the platform where it tells
   * (Discord); undefined where it cannot. A restart finishing a dead process's reply asks it, since
   * the reply journal is written at most every few seconds and may be behind the screen.
   */
  readText?(message: PostedMessage): Promise<string | undefined>;
  /** Attaches files (generated images, JSON, CSV) as a new message, with optional text. */
  upload?(files: readonly OutgoingFile[], text?: string): Promise<PostedMessage>;
  /** Shows a "typing…" / "thinking…" indicator; called only while nothing else needs the budget. */
  showTyping?(): Promise<void>;
  /**
   * Shows what the bot is doing before the reply's text ("🔎 searching: …") where the platform has a
   * status of its own (Slack's thread status); the reply's first message shows it everywhere.
   */
  showStatus?(text: string): Promise<void>;
  /**
   * Shows a tool call of the reply the platform's own way (Slack: a task card in the native stream;
   * the terminal: a dimmed line), as it waits, starts and ends, and answers whether it did. Where it
   * answers `not-shown`, or is absent, delivery shows the steps as lines above the reply's text
   * while it runs (see `toolStepLines`); at the end the reply's notes say how many tools it used.
   */
  showToolStep?(step: ToolStep): Promise<'shown' | 'not-shown'>;
  /**
   * How delivery shows steps the surface does not show itself: a line for each (default), or only
   * the latest, compact, where every edit is dear (Slack's chat.update).
   */
  readonly toolStepLines?: 'each' | 'latest';
  /**
   * Replaces the buttons under a message this surface posted; an empty list removes them. Its
   * presence says the place shows buttons at all: a reply offers Stop and Regenerate only then.
   * Delivery itself sends buttons with the text (`post`, `edit`); this is for repairs after a restart.
   */
  setActions?(message: PostedMessage, actions: readonly Action[]): Promise<void>;
  /**
   * The platform shows 👍/👎 under a finished reply natively (Slack's feedback buttons), so replies
   * here are offered for rating; elsewhere they are not, to keep the row of buttons short.
   */
  readonly hasFeedbackButtons?: boolean;
  /**
   * Whether a failed call is worth trying again, and when, as the platform's error says. Without it
   * delivery treats every failure as passing (a dropped connection, a 5xx, a rate limit).
   */
  classifyFailure?(error: unknown): PlatformFailure;
  /**
   * Tells only the person the reply is for (Slack ephemeral, a Discord DM, the terminal's own line):
   * for notices that are nobody else's business, such as "you cannot use parley here".
   */
  postPrivately?(text: string): Promise<void>;
}

/** What a failed platform call means for trying it again. */
export interface PlatformFailure {
  /** False when the same call can never succeed (a deleted message, a missing permission). */
  readonly isRetryable: boolean;
  /** How long the platform asked us to wait (a rate limit's `Retry-After`), when it said. */
  readonly retryAfterMs?: number;
}

export interface PostOptions {
  readonly actions?: readonly Action[];
  /**
   * The post carries its message's final text, though the reply goes on in a next message (an early
   * part, see `earlyPartDelayMs`): no edit will follow unless the post fails.
   */
  readonly isFinal?: boolean;
  /**
   * The post carries its message's final text and the reply has ended: no edit will follow (unless
   * the post fails). A platform whose streaming costs calls of its own posts such a reply plainly.
   */
  readonly isWhole?: boolean;
}

export interface EditOptions {
  /**
   * This edit gives the message its final text (the reply ended, or the message is full and the
   * reply continues in the next one). A platform short of budget sends these before in-between edits.
   */
  readonly isFinal?: boolean;
  /** The buttons the message shows from now on (an empty list removes them); undefined keeps them. */
  readonly actions?: readonly Action[];
}

/** One call a surface is asked to make, as its outbound queue needs to know it. */
export type SurfaceCall =
  | { readonly kind: 'post' }
  | {
      readonly kind: 'edit';
      readonly message: PostedMessage;
      readonly isFinal: boolean;
      /** When the message last showed fresh text: the stalest in-between edit goes first. */
      readonly staleSinceMs: number;
    };

export interface SurfaceLimits {
  /** The most characters one message may hold (Discord 2,000; Slack about 40,000; terminal: large). */
  readonly maxMessageLength: number;
  /** The least time between two edits of the same message, from the platform's edit budget. */
  readonly minEditIntervalMs: number;
  /**
   * The least time between a message's last in-between edit and its final one, where that is less
   * than `minEditIntervalMs`: a surface whose every call waits in a queue that keeps the platform's
   * own limits (`enqueue`) lets the final text go as soon as those allow, rather than at the pace
   * it chose for in-between edits. Default `minEditIntervalMs`.
   */
  readonly finalEditIntervalMs?: number;
}

export interface PostedMessage {
  readonly id: string;
}

export interface OutgoingFile {
  readonly name: string;
  readonly mimeType: string;
  readonly bytes: Uint8Array;
}
