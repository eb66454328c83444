import type { AccessRules } from '../access/access-policy.ts';
import type { ConversationPlace } from '../conversation/turn.ts';
import {
  type DirectMessageMode,
  defaultRetentionDays,
  type MemoryMode,
} from '../environment/spend-access-values.ts';
import {
  type BudgetLimits,
  budgetSettingNames,
  type RoleBudgetLimits,
  roleBudgetSettingNames,
} from '../spending/budget-rules.ts';
import { adminSettings, type OverrideScope, type OverrideValue } from './admin-settings.ts';
import type { OverrideStore, PlaceOverrides } from './override-store.ts';

/**
 * How a channel answers: when addressed, in a thread of its own (`thread`) or in the channel
 * (`inline`), or every message (`all`). Platforms without threads of their own read `thread` as `inline`.
 */
export type ReplyMode = 'thread' | 'inline' | 'all';

/** Everything /config can change, as it stands at one place: overrides over the environment. */
export interface PlaceSettings {
  readonly budgetLimits: BudgetLimits;
  readonly roleBudgetLimits: RoleBudgetLimits;
  readonly access: AccessRules;
  /** Undefined: as the environment says (e.g. DISCORD_REPLY_ALL_CHANNEL_IDS). */
  readonly replyMode: ReplyMode | undefined;
  /** Undefined: the process default. A conversation's own /model and /system still win. */
  readonly chatModel: string | undefined;
  readonly systemPrompt: string | undefined;
  readonly tools: ToolRules;
  /** MEMORY: what parley remembers across conversations here. */
  readonly memory: MemoryMode;
  /** Days what is said here is kept (HISTORY_RETENTION_DAYS); null: no time limit. */
  readonly retentionDays: number | null;
  /** SCHEDULE_TIMEZONE: the zone reminders and schedules made here read their times in. */
  readonly scheduleTimeZone: string | undefined;
}

/** Which tools the model may call here (TOOLS) and which only some roles may have it call (TOOL_ROLE_IDS). */
export interface ToolRules {
  /** Tool names, `server_*` for a server's tools, `*` for all; empty: none. */
  readonly patterns: readonly string[];
  readonly roleIds: Readonly<Record<string, readonly string[]>>;
}

/** Where a setting's value at a place comes from. */
export type SettingSource = OverrideScope | 'environment';

export interface SettingState {
  readonly name: string;
  readonly value: OverrideValue | undefined;
  readonly source: SettingSource;
}

/** Reads what is in force at a place; the defaults are the environment's, by setting name. */
export interface PlaceSettingsReader {
  settingsAt(place: ConversationPlace): Promise<PlaceSettings>;
  /** Every /config setting at the place, with where its value comes from, and the latest changes. */
  statesAt(place: ConversationPlace): Promise<{ states: SettingState[]; overrides: PlaceOverrides }>;
}

export function createPlaceSettingsReader({
  overrides,
  defaults,
}: {
  overrides: OverrideStore;
  defaults: Readonly<Record<string, OverrideValue | undefined>>;
}): PlaceSettingsReader {
  return {
    async settingsAt(place) {
      return toPlaceSettings(resolve(await overrides.read(place), defaults));
    },
    async statesAt(place) {
      const read = await overrides.read(place);
      const states = adminSettings.map((setting) => {
        if (setting.name in read.channel) {
          return { name: setting.name, value: read.channel[setting.name], source: 'channel' as const };
        }
        if (setting.name in read.server) {
          return { name: setting.name, value: read.server[setting.name], source: 'server' as const };
        }
        return { name: setting.name, value: defaults[setting.name], source: 'environment' as const };
      });
      return { states, overrides: read };
    },
  };
}

// `null` is an override too ("no limit here"), so presence is checked, not the value.
function resolve(
  read: PlaceOverrides,
  defaults: Readonly<Record<string, OverrideValue | undefined>>,
): (name: string) => OverrideValue | undefined {
  return (name) => {
    if (name in read.channel) return read.channel[name];
    if (name in read.server) return read.server[name];
    return defaults[name];
  };
}

function toPlaceSettings(settingValue: (name: string) => OverrideValue | undefined): PlaceSettings {
  const list = (name: string): readonly string[] => {
    const value = settingValue(name);
    return Array.isArray(value) ? (value as string[]) : [];
  };
  const text = (name: string): string | undefined => {
    const value = settingValue(name);
    return typeof value === 'string' ? value : undefined;
  };
  const map = <Entry>(name: string): Readonly<Record<string, Entry>> => {
    const value = settingValue(name);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, Entry>)
      : {};
  };
  const budgetLimits: BudgetLimits = Object.fromEntries(
    budgetSettingNames.map((name) => {
      const value = settingValue(name);
      return [name, typeof value === 'number' ? value : undefined];
    }),
  );
  const roleBudgetLimits: RoleBudgetLimits = Object.fromEntries(
    roleBudgetSettingNames.map((name) => [name, map<number>(name)]),
  );
  const replyMode = text('REPLY_MODE');
  return {
    budgetLimits,
    roleBudgetLimits,
    access: {
      allowUserIds: list('ACCESS_ALLOW_USER_IDS'),
      blockUserIds: list('ACCESS_BLOCK_USER_IDS'),
      allowRoleIds: list('ACCESS_ALLOW_ROLE_IDS'),
      blockRoleIds: list('ACCESS_BLOCK_ROLE_IDS'),
      allowChannelIds: list('ACCESS_ALLOW_CHANNEL_IDS'),
      blockChannelIds: list('ACCESS_BLOCK_CHANNEL_IDS'),
      directMessages: (text('ACCESS_DMS') ?? 'on') as DirectMessageMode,
      groupDirectMessages: (text('ACCESS_GROUP_DMS') ?? 'off') as DirectMessageMode,
      userInstalls: (text('ACCESS_USER_INSTALLS') ?? 'off') as DirectMessageMode,
      commandRoleIds: map<readonly string[]>('ACCESS_COMMAND_ROLE_IDS'),
      sharedWriterRoleIds: list('ACCESS_SHARED_ROLE_IDS'),
    },
    replyMode: toReplyMode(replyMode),
    chatModel: text('CHAT_MODEL'),
    systemPrompt: text('SYSTEM_PROMPT'),
    memory: (text('MEMORY') ?? 'off') as MemoryMode,
    scheduleTimeZone: text('SCHEDULE_TIMEZONE'),
    tools: {
      patterns: settingValue('TOOLS') === undefined ? ['*'] : list('TOOLS'),
      roleIds: map<readonly string[]>('TOOL_ROLE_IDS'),
    },
    retentionDays: retentionDaysOf(settingValue('HISTORY_RETENTION_DAYS')),
  };
}

// A number of days, or null for "off"; what is neither (never written by /config) keeps the default.
function retentionDaysOf(value: OverrideValue | undefined): number | null {
  if (value === null) return null;
  return typeof value === 'number' && value >= 1 ? value : defaultRetentionDays;
}

// `mentions` is what /config stored before threads existed: answer when addressed, in the channel.
function toReplyMode(value: string | undefined): ReplyMode | undefined {
  if (value === 'mentions') return 'inline';
  return value === 'thread' || value === 'inline' || value === 'all' ? value : undefined;
}

/** The environment's values of the /config settings, by name. */
export function environmentDefaults({
  limits,
  roleLimits,
  access,
  tools,
  memory = 'off',
  retentionDays = defaultRetentionDays,
  scheduleTimeZone,
}: {
  limits: BudgetLimits;
  roleLimits: RoleBudgetLimits;
  access: AccessRules;
  tools: ToolRules;
  memory?: MemoryMode;
  /** HISTORY_RETENTION_DAYS; null: no time limit. */
  retentionDays?: number | null;
  /** SCHEDULE_TIMEZONE (or BUDGET_TIMEZONE, its default). */
  scheduleTimeZone?: string;
}): Record<string, OverrideValue | undefined> {
  return {
    MEMORY: memory,
    HISTORY_RETENTION_DAYS: retentionDays,
    SCHEDULE_TIMEZONE: scheduleTimeZone,
    TOOLS: tools.patterns,
    TOOL_ROLE_IDS: tools.roleIds,
    ...limits,
    ...roleLimits,
    ACCESS_ALLOW_USER_IDS: access.allowUserIds,
    ACCESS_BLOCK_USER_IDS: access.blockUserIds,
    ACCESS_ALLOW_ROLE_IDS: access.allowRoleIds,
    ACCESS_BLOCK_ROLE_IDS: access.blockRoleIds,
    ACCESS_ALLOW_CHANNEL_IDS: access.allowChannelIds,
    ACCESS_BLOCK_CHANNEL_IDS: access.blockChannelIds,
    ACCESS_DMS: access.directMessages,
    ACCESS_GROUP_DMS: access.groupDirectMessages,
    ACCESS_USER_INSTALLS: access.userInstalls,
    ACCESS_COMMAND_ROLE_IDS: access.commandRoleIds,
    ACCESS_SHARED_ROLE_IDS: access.sharedWriterRoleIds,
  };
}
