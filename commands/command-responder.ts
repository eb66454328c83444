import type { Action, Card } from '../src/delivery/card.ts';
import type { Form } from '../src/delivery/form.ts';
import type { OutgoingFile, PostedMessage, Surface } from '../src/delivery/surface.ts';
import type { ToolStep } from '../src/gateway/chat-types.ts';

/** One message of the channel or thread, as `/summarize` reads it from the platform. */
export interface ChannelMessage {
  readonly authorName: string;
  readonly text: string;
  readonly createdAt: string;
  readonly isBot: boolean;
}

/** What a command sends back; each platform renders it natively. */
export interface CommandResult {
  readonly text?: string;
  readonly card?: Card;
  readonly files?: readonly OutgoingFile[];
  readonly actions?: readonly Action[];
  /** Only the person who ran the command sees it (Discord ephemeral, Slack ephemeral). */
  readonly isPrivate?: boolean;
}

/** What the platform did with a result: the public links of uploaded files, where it has them. */
export interface SentResult {
  readonly fileUrls?: readonly string[];
}

/** Where a command answers: implemented by each adapter for the place the command was run. */
export interface CommandResponder {
  /** The surface streamed text goes to (/chat, Regenerate, Continue). */
  readonly surface: Surface;
  /**
   * Shows or replaces a short progress line; the next `send` replaces it where the platform can.
   * Resolves with the message that shows it, where the platform has one (for the journal).
   */
  progress(text: string): Promise<PostedMessage | undefined>;
  /**
   * Shows a step of the command's long work the platform's own way (Slack: a task card in a native
   * stream of the thread), as it starts and ends, and answers whether it did. Where it answers
   * `not-shown`, or is absent, the command shows `progress` lines instead.
   */
  showStep?(step: ToolStep): Promise<'shown' | 'not-shown'>;
  // biome-ignore lint/suspicious/noConfusingVoidType: most responders report nothing; only those that post files with public links return them.
  send(result: CommandResult): Promise<SentResult | void>;
  /**
   * Takes the pressed button off the message it sits on, leaving the message and its other buttons
   * as they are: a Stop that no running reply answers to (left by a restart, or pressed twice).
   * Only the responders of button presses on platforms that can edit that message have it.
   */
  removePressedAction?(): Promise<void>;
  /**
   * Opens a form for the person (Slack: a modal, from the command's trigger). Absent where the
   * platform has none or the moment has passed; the command then answers in text.
   */
  openForm?(form: Form): Promise<void>;
  /**
   * Renames the place of the conversation (a Discord thread, a Slack agent thread's title). Absent
   * where the platform has no name to change there; /title then says so.
   */
  renameConversation?(title: string): Promise<ConversationRenameOutcome>;
  /**
   * Sends to the person alone, where only they read it: Discord a DM, Slack the app's DM with them,
   * the terminal its own output (files saved in the output folder). Rejects when the platform
   * refuses (DMs closed). Absent where there is no such place.
   */
  sendDirect?(result: CommandResult): Promise<void>;
  /** Files it posts get links anyone can fetch (Discord's CDN): the image model can take them. */
  readonly hasPublicFileLinks?: boolean;
  /**
   * For a button press: the links of the files on the clicked message, fresh from the platform
   * (Discord's attachment links are signed and expire; each payload carries newly signed ones).
   */
  readonly clickedMessageFileUrls?: readonly string[];
}

/** What came of renaming a conversation's place. */
export type ConversationRenameOutcome =
  | { readonly status: 'renamed' | 'unchanged'; readonly title: string }
  /** The platform's rename budget is spent until `retryAtMs` (Discord: two per ten minutes). */
  | { readonly status: 'limited'; readonly retryAtMs: number }
  /** This place has no name parley may change (not a thread, or not one it may rename); `reason` says why. */
  | { readonly status: 'unavailable'; readonly reason: string };
