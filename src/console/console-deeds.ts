import type { Actor } from '../access/actor.ts';
import type { OverrideScope } from '../administration/admin-settings.ts';
import type { ConversationKey } from '../conversation/turn.ts';
import type { PlacePeriodSpend, UsageTotals } from '../conversation/usage-ledger.ts';
import type { Card } from '../delivery/card.ts';
import type { MemoryNote, MemoryScope } from '../memory/memory-book.ts';
import type { ActivityRates } from '../operations/activity-rates.ts';
import type { ScheduleRecord } from '../scheduling/schedule-record.ts';

/** The overview of a place: replies in flight, budgets as they stand, tools, the next runs. */
export interface PlaceOverview {
  /** Replies being written by this process now (each process of a bot counts its own). */
  readonly repliesInFlight: number;
  /** This process's replies a minute, and the share failed or refused, over the last minutes. */
  readonly activity: ActivityRates;
  /** Each budget that applies to the admin here, with what is left, as /usage says it. */
  readonly budgets: readonly {
    readonly description: string;
    readonly left: string;
    readonly reset: string;
  }[];
  /** Each source of tools (built-in, or an MCP server) and whether it is up. */
  readonly tools: readonly { readonly source: string; readonly toolCount: number; readonly isUp: boolean }[];
  /** The server's schedules that run next, soonest first. */
  readonly nextRuns: readonly ScheduleRecord[];
}

/** The tools parley has, whether their servers are up, and the questions waiting for a yes. */
export interface ToolsOverview {
  readonly tools: ReadonlyArray<{
    readonly name: string;
    readonly title: string;
    readonly source: string;
    /** Each call waits for the asker's yes. */
    readonly asksFirst: boolean;
    readonly priceNanos: number;
  }>;
  /** MCP servers down now, with the tools they had. */
  readonly down: ReadonlyArray<{ readonly source: string; readonly toolNames: readonly string[] }>;
  /** Approval questions open in this process now. */
  readonly pendingApprovals: number;
}

/** What the console's schedule buttons do. */
export const scheduleChanges = ['pause', 'resume', 'delete', 'run'] as const;
export type ScheduleChange = (typeof scheduleChanges)[number];

/** A setting change asked in the console's form, as `/config set` or `/config reset` would take it. */
export interface ConsoleSettingChange {
  readonly actor: Actor;
  readonly conversationKey: ConversationKey;
  readonly name: string;
  readonly scope: OverrideScope;
  /** What they typed; undefined puts the setting back to its default. */
  readonly text: string | undefined;
}

/**
 * What the console asks of the rest of parley that lives above the core (commands/): the person as
 * their platform shows them now, and the very code `/config` and `/usage` run. The console is one
 * more entry point on those, never a second implementation; bin/ hands it in.
 */
export interface ConsoleDeeds {
  /**
   * The person as the platform shows them now at a server or workspace (ScheduledPlaces.actorNow,
   * as a scheduled run asks it), or undefined when they are not there, or the platform does not run
   * in this process.
   */
  actorNow(request: { platform: string; workspace: string; userId: string }): Promise<Actor | undefined>;
  /** Whether parley is in that server or workspace now, as its platform told it (no request). */
  isPresentIn(place: { platform: string; workspace: string }): boolean;
  /** `/config set|reset`'s one code path: checked, stored, logged and recorded in the audit trail. */
  changeSetting(
    change: ConsoleSettingChange,
  ): Promise<
    | { readonly isChanged: true; readonly description: string }
    | { readonly isChanged: false; readonly problem: string }
  >;
  /** `/usage` for the person themselves at the place. */
  usageCard(request: { actor: Actor; conversationKey: ConversationKey }): Promise<Card>;
  /** `/usage --top` at the place. */
  topSpendCard(request: { conversationKey: ConversationKey }): Promise<Card>;
  /** The channel schedules of the server, soonest first. */
  schedulesAt(place: { platform: string; workspace: string }): Promise<readonly ScheduleRecord[]>;
  /**
   * Pauses, resumes or deletes a schedule of this server, as its buttons under /schedules do, or
   * runs it once now as its owner (through the runner's gate), when the actor may change it there;
   * recorded in the audit trail. Resolves with words for the person.
   */
  changeSchedule(request: {
    actor: Actor;
    place: { platform: string; workspace: string };
    scheduleId: string;
    change: ScheduleChange;
  }): Promise<{ readonly isChanged: boolean; readonly text: string }>;
  /** The notes parley keeps here: the person's own, or the place's. */
  notesAt(request: {
    actor: Actor;
    conversationKey: ConversationKey;
    scope: MemoryScope;
  }): Promise<readonly MemoryNote[]>;
  /** Forget under /memory: one note (or all) of the person's own or, for who may, the place's. */
  forgetNotes(request: {
    actor: Actor;
    conversationKey: ConversationKey;
    scope: MemoryScope;
    noteId: string | undefined;
  }): Promise<{ readonly isForgotten: boolean; readonly text: string }>;
  /** The person's reminders made on this platform. */
  remindersOf(request: {
    actor: Actor;
    conversationKey: ConversationKey;
  }): Promise<readonly ScheduleRecord[]>;
  /** What the overview shows of this process and place, besides readiness. */
  overviewOf(request: {
    actor: Actor;
    place: { platform: string; workspace: string };
  }): Promise<PlaceOverview>;
  /** The whole server's spending and tool calls, today and this month. */
  placeSpend(place: { platform: string; workspace: string }): Promise<{
    readonly today: UsageTotals;
    readonly month: UsageTotals;
  }>;
  /**
   * The whole server's spending day by day (the last `days`) and month by month (the last
   * `months`), oldest first, each with its cost by model and tool calls by tool.
   */
  placeHistory(request: { platform: string; workspace: string; days: number; months: number }): Promise<{
    readonly days: readonly PlacePeriodSpend[];
    readonly months: readonly PlacePeriodSpend[];
  }>;
  /**
   * `/export` of the person's own data, as a file for the browser to download (the console is
   * their own signed-in page, as a DM is); recorded in the audit trail. The file's JSON text.
   */
  exportMine(request: { actor: Actor; conversationKey: ConversationKey }): Promise<string>;
  /** `/forget me`, confirmed: everything parley keeps about the person, as its Forget button does. */
  forgetMe(request: {
    actor: Actor;
    conversationKey: ConversationKey;
  }): Promise<{ readonly isDone: boolean; readonly text: string }>;
  /** The tools as the toolbox has them now. */
  toolsOverview(): ToolsOverview;
  /** What each role with a budget here spent today and this month, most first. */
  roleSpend(place: {
    platform: string;
    workspace: string;
  }): Promise<
    ReadonlyArray<{ readonly roleId: string; readonly todayNanos: number; readonly monthNanos: number }>
  >;
  /** The same figures as CSV, each cell neutralised as /extract's CSV is. */
  topSpendCsv(request: { conversationKey: ConversationKey }): Promise<string>;
}
