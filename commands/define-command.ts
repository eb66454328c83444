import type { AccessGate } from '../src/access/access-gate.ts';
import type { Actor } from '../src/access/actor.ts';
import type { OverrideStore } from '../src/administration/override-store.ts';
import type { PlaceSettingsReader } from '../src/administration/place-settings.ts';
import type { AuditLog } from '../src/audit/audit-log.ts';
import type { Connectors } from '../src/connectors/connectors.ts';
import type { ConsoleLinkDesk } from '../src/console/console-link-desk.ts';
import type { ActiveReplies } from '../src/conversation/active-replies.ts';
import type { ConversationEngine } from '../src/conversation/engine.ts';
import type { HistoryStore } from '../src/conversation/history-store.ts';
import type { ReplyFeedbackStore } from '../src/conversation/reply-feedback.ts';
import type { ReplyJournal } from '../src/conversation/reply-journal.ts';
import type { SettingsStore } from '../src/conversation/settings-store.ts';
import type { ConversationKey } from '../src/conversation/turn.ts';
import type { UsageLedger } from '../src/conversation/usage-ledger.ts';
import type { Form, FormOutcome, FormSubmission } from '../src/delivery/form.ts';
import type { DocumentReader } from '../src/documents/document-reader.ts';
import type { Gateway } from '../src/gateway/gateway-client.ts';
import type { Logger } from '../src/log.ts';
import type { MemoryBook } from '../src/memory/memory-book.ts';
import type { PersonData } from '../src/retention/person-data.ts';
import type { WorkspaceData } from '../src/retention/workspace-data.ts';
import type { PersonalTimeZones } from '../src/scheduling/personal-time-zones.ts';
import type { Scheduler } from '../src/scheduling/scheduler.ts';
import type { SpendGuard } from '../src/spending/spend-guard.ts';
import type { ToolApprovals } from '../src/tools/tool-approvals.ts';
import type { Toolbox } from '../src/tools/toolbox.ts';
import type { ActionStore } from './action-store.ts';
import type { CommandInput, CommandOptions } from './command-options.ts';
import type { ChannelMessage, CommandResponder } from './command-responder.ts';
import type { ScheduledPlacesRegistry } from './scheduled-places.ts';

// The responder's types live in their own file, which the scheduled places use without this one.
export type {
  ChannelMessage,
  CommandResponder,
  CommandResult,
  ConversationRenameOutcome,
  SentResult,
} from './command-responder.ts';

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
  /**
   * A command of the list every platform registers, by name: for commands that name others (/schedule
   * runs one), which cannot import the list they are in.
   */
  readonly findCommand: (name: string) => Command | undefined;
  readonly overrides: OverrideStore;
  readonly places: PlaceSettingsReader;
  readonly actionStore: ActionStore;
  /** Everything parley holds about one person: /forget, /export. */
  readonly personData: PersonData;
  /** Everything kept of one server or workspace, removed at once; absent in a test's services. */
  readonly workspaceData?: WorkspaceData;
  readonly activeReplies: ActiveReplies;
  /** What parley remembers across conversations (MEMORY), for /memory. */
  readonly memory: MemoryBook;
  /** Acting tool calls waiting for their asker's Approve or Deny. */
  readonly toolApprovals: ToolApprovals;
  /** Every tool there is now (built-in and MCP servers'), before a place's rules: /help lists a person's. */
  readonly toolbox: Toolbox;
  /** OAuth connectors of the tools file (/connections); absent without one. */
  readonly connectors?: Connectors;
  /** How long such a call waits (TOOL_APPROVAL_TIMEOUT_S). */
  readonly toolApprovalTimeoutMs: number;
  /** Replies in flight, so the ones a dead process left can be finished on the next start. */
  readonly journal: ReplyJournal;
  /** One-time links to the owner's console, for /console; absent in tests that build their own. */
  readonly consoleLinks?: ConsoleLinkDesk;
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
   * The places of every platform this process runs, each registered as it connects: who a person
   * is there now, and where parley may answer. On every store, scheduler or not: the owner's console
   * and connectors judge people through it too.
   */
  readonly platformPlaces: ScheduledPlacesRegistry;
  /**
   * Reminders and schedules (/remind, /schedule, /schedules); absent where the process runs none
   * (a postgres:// store, a test's services).
   */
  readonly scheduling?: {
    readonly scheduler: Scheduler;
    /** Where runs answer: the same registry as `platformPlaces`. */
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
