import type { AccessGate } from '../src/access/access-gate.ts';
import type { Actor } from '../src/access/actor.ts';
import type { OverrideStore } from '../src/administration/override-store.ts';
import type { PlaceSettingsReader } from '../src/administration/place-settings.ts';
import type { AuditLog } from '../src/audit/audit-log.ts';
import type { ActiveReplies } from '../src/conversation/active-replies.ts';
import type { ConversationEngine } from '../src/conversation/engine.ts';
import type { HistoryStore } from '../src/conversation/history-store.ts';
import type { ReplyFeedbackStore } from '../src/conversation/reply-feedback.ts';
import type { ReplyJournal } from '../src/conversation/reply-journal.ts';
import type { SettingsStore } from '../src/conversation/settings-store.ts';
import type { ConversationKey } from '../src/conversation/turn.ts';
import type { UsageLedger } from '../src/conversation/usage-ledger.ts';
import type { Action, Card } from '../src/delivery/card.ts';
import type { Form, FormOutcome, FormSubmission } from '../src/delivery/form.ts';
import type { OutgoingFile, PostedMessage, Surface } from '../src/delivery/surface.ts';
import type { DocumentReader } from '../src/documents/document-reader.ts';
import type { ToolStep } from '../src/gateway/chat-types.ts';
import type { Gateway } from '../src/gateway/gateway-client.ts';
import type { Logger } from '../src/log.ts';
import type { MemoryBook } from '../src/memory/memory-book.ts';
import type { PersonData } from '../src/retention/person-data.ts';
import type { PersonalTimeZones } from '../src/scheduling/personal-time-zones.ts';
import type { Scheduler } from '../src/scheduling/scheduler.ts';
import type { SpendGuard } from '../src/spending/spend-guard.ts';
import type { ToolApprovals } from '../src/tools/tool-approvals.ts';
import type { Toolbox } from '../src/tools/toolbox.ts';
import type { ActionStore } from './action-store.ts';
import type { CommandInput, CommandOptions } from './command-options.ts';
import type { ScheduledPlacesRegistry } from './scheduled-places.ts';

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

/** The core services every command may use; built once in the composition root. */
export interface CommandServices {
  readonly engine: ConversationEngine;
  readonly gateway: Gateway;
  readonly history: HistoryStore;
  readonly settings: SettingsStore;
  /** Ratings of finished replies (👍/👎). */
  readonly feedback: ReplyFeedbackStore;
  readonly usage: UsageLedger;
  /** Budgets and the request rate: every gateway call is admitted here first. */
  readonly spending: SpendGuard;
  readonly access: AccessGate;
  /** The audit trail: deeds done here and on whose authority (/audit reads it). */
  readonly audit: AuditLog;
  readonly overrides: OverrideStore;
  readonly places: PlaceSettingsReader;
  readonly actionStore: ActionStore;
  /** Everything parley holds about one person: /forget, /export. */
  readonly personData: PersonData;
  readonly activeReplies: ActiveReplies;
  /** What parley remembers across conversations (MEMORY), for /memory. */
  readonly memory: MemoryBook;
  /** Acting tool calls waiting for their asker's Approve or Deny. */
  readonly toolApprovals: ToolApprovals;
  /** Every tool there is now (built-in and MCP servers'), before a place's rules: /help lists a person's. */
  readonly toolbox: Toolbox;
  /** How long such a call waits (TOOL_APPROVAL_TIMEOUT_S). */
  readonly toolApprovalTimeoutMs: number;
  /** Replies in flight, so the ones a dead process left can be finished on the next start. */
  readonly journal: ReplyJournal;
  readonly models: {
    readonly chat: string;
    readonly vision: string;
    readonly image: string;
    readonly structured: string;
    /** Names conversations after their first exchange (`TITLE_MODEL`, default the chat model). */
    readonly title: string;
    /** Every model a conversation may switch to with /model. */
    readonly selectable: readonly string[];
  };
  readonly systemPrompt: string;
  /** Largest image a person may attach, in bytes. */
  readonly maxImageBytes: number;
  /** The longest an image generation may take (IMAGE_TIMEOUT_MS): its budget hold lasts a little longer. */
  readonly imageTimeoutMs: number;
  /** BUDGET_TIMEZONE, for saying when budgets reset. */
  readonly budgetTimeZone: string;
  /** Largest document (PDF, Word, Excel, CSV, text) a person may attach, in bytes. */
  readonly maxDocumentBytes: number;
  /** Whether web search is configured (`SEARCH_URL`), for `/search`. */
  readonly isSearchConfigured: boolean;
  /** Reads documents for `--file` options, once each (kept by hash). */
  readonly documents: DocumentReader;
  /**
   * Reminders and schedules (/remind, /schedule, /schedules); absent where the process runs none
   * (a test's services).
   */
  readonly scheduling?: {
    readonly scheduler: Scheduler;
    /** Where runs answer: each platform registers its places as it connects. */
    readonly places: ScheduledPlacesRegistry;
    /** The time zone "9:00" is read in unless a command says another (SCHEDULE_TIMEZONE). */
    readonly timeZone: string;
    /** The zone each person set for their own reminders with /timezone. */
    readonly personalTimeZones: PersonalTimeZones;
  };
  /** Whether this person may change /model and /system. */
  mayChangeSettings(user: Actor): boolean;
  readonly logger: Logger;
  readonly now: () => Date;
}

export interface CommandContext<Input> {
  readonly input: Input;
  readonly conversationKey: ConversationKey;
  readonly user: Actor;
  readonly responder: CommandResponder;
  readonly services: CommandServices;
  /** The newest messages of the channel or thread, oldest first, read from the platform. */
  readRecentMessages(limit: number): Promise<ChannelMessage[]>;
  readonly signal: AbortSignal;
  /**
   * What the platform wants people to know about how parley runs there, in one sentence each
   * (e.g. a privileged setting that is off and what it costs); /help shows them.
   */
  readonly platformNotices?: readonly string[];
  /**
   * What only this platform offers or needs saying, which /help shows first (Slack: the prefix its
   * commands take here; the terminal: its own commands).
   */
  readonly platformHelp?: string;
  /**
   * The person's time zone as their platform tells it, when it does: the `tz` of Slack's user
   * object from `users.info` (api.slack.com/types/user). Discord's user object has no time zone.
   */
  readonly platformTimeZone?: string;
}

export interface Command<Options extends CommandOptions = CommandOptions> {
  /** Lowercase, as typed after the slash. */
  readonly name: string;
  /** One line for the platform's command list and /help. */
  readonly description: string;
  readonly options: Options;
  /**
   * Whether the command waits for the conversation's earlier replies. Commands that reply through the
   * engine (/chat) are ordered by the engine itself and say false here.
   */
  readonly runsInConversationOrder: boolean;
  /**
   * True when the command, done, ends the conversation where it ran (/reset): a platform that keeps
   * a session for the conversation (Slack's agent sessions) closes it.
   */
  readonly endsConversation?: boolean;
  /**
   * True when the answer to this input is private whatever the command finds (/help, /usage,
   * showing /model). A platform that must choose before the command runs (Discord's deferred reply,
   * whose privacy cannot change later) opens the answer privately. Absent: public.
   */
  isAnswerPrivate?(input: CommandInput<Options>): boolean;
  /**
   * Also offered where a person installed the app for themselves (Discord user install): DMs with
   * friends, group DMs, servers without the bot. There it may answer only through the command.
   */
  readonly isUsableAnywhere?: boolean;
  /** Only server admins see it in the command list (Discord: Manage Server); it checks again itself. */
  readonly isForAdmins?: boolean;
  run(context: CommandContext<CommandInput<Options>>): Promise<void>;
  /**
   * A form to open instead of answering, for this input; asked first by platforms whose form must
   * be the very first response (Discord's modal comes before any "thinking…"). Must be quick.
   * Undefined: the command runs as usual.
   */
  formInsteadOfAnswer?(
    context: Omit<CommandContext<CommandInput<Options>>, 'responder' | 'readRecentMessages' | 'signal'>,
  ): Promise<Form | undefined>;
  /** Handles a form this command opened (`CommandResponder.openForm`). */
  submitForm?(context: FormContext): Promise<FormOutcome>;
}

/** A submitted form, with who submitted it and the services to act on it. */
export interface FormContext {
  readonly submission: FormSubmission;
  readonly user: Actor;
  readonly services: CommandServices;
}

/** Declares a command once; adapters register and render it on every platform. */
export function defineCommand<Options extends CommandOptions>(command: Command<Options>): Command<Options> {
  return command;
}
