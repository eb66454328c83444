import type { z } from 'zod';
import {
  commandRoles,
  costLimit,
  countLimit,
  directMessageModes,
  idList,
  memoryModes,
  retentionDays,
  roleBudgets,
  toolPatterns,
} from '../environment/spend-access-values.ts';
import { type BudgetSettingName, budgetRules, describeBudget } from '../spending/budget-rules.ts';
import {
  type NamedTool,
  suggestToolPatterns,
  suggestToolRoles,
  toolPatternChoices,
} from './tool-suggestions.ts';

/** Where an override applies: a whole server (Slack: workspace), or one channel and its threads. */
export type OverrideScope = 'server' | 'channel';

/** A stored override value: JSON, `null` meaning "explicitly none" (no limit, empty list). */
export type OverrideValue = string | number | null | readonly string[] | Readonly<Record<string, unknown>>;

/** What suggestions for a setting's value are made from. */
export interface SuggestionSources {
  /** /model's list. */
  readonly models: readonly string[];
  /** The tools parley has now: the built-in ones and those of the MCP servers listed. */
  readonly tools: readonly NamedTool[];
  /** What is typed so far. */
  readonly typed: string;
}

/** One setting an admin may change with /config. */
export interface AdminSetting {
  readonly name: string;
  /** A few words for lists and forms. */
  readonly label: string;
  /** How to write a value, shown when it is wrong and as a form hint. */
  readonly hint: string;
  readonly scopes: readonly OverrideScope[];
  /** Reads what a person typed; `current` is the value in force, for `+id` / `-id` on lists. */
  parse(text: string, current: OverrideValue | undefined): { value: OverrideValue } | { problem: string };
  format(value: OverrideValue | undefined): string;
  /** Suggestions while typing (Discord autocomplete), from what is typed so far. */
  suggestions?(sources: SuggestionSources): readonly string[];
  /**
   * The items a list setting is made of, for a form to offer as a multi-select (Slack's modal):
   * the chosen ones are written as the value, separated by commas.
   */
  listChoices?(sources: Omit<SuggestionSources, 'typed'>): readonly string[];
  readonly isLong?: boolean;
}

const bothScopes: readonly OverrideScope[] = ['server', 'channel'];
const noLimitWords = new Set(['none', 'unlimited', 'no limit', 'off']);

function fromSchema<Value>(schema: z.ZodType<Value>, text: string): { value: Value } | { problem: string } {
  const parsed = schema.safeParse(text);
  if (parsed.success) return { value: parsed.data };
  return { problem: parsed.error.issues.map((issue) => issue.message).join('; ') };
}

function budgetSetting(name: BudgetSettingName): AdminSetting {
  const rule = budgetRules[name];
  const isCost = rule.measure === 'cost';
  const label = describeBudget(rule)
    .replace(/^your /, 'each person’s ')
    .replace(/^this /, 'the ');
  return {
    name,
    label: label.charAt(0).toUpperCase() + label.slice(1),
    hint: isCost
      ? 'an amount in cost units like 2.50, or none for no limit'
      : `a number of ${rule.measure} like 20, or none for no limit`,
    scopes: rule.scope === 'server' ? ['server'] : bothScopes,
    parse(text) {
      if (noLimitWords.has(text.trim().toLowerCase())) return { value: null };
      const parsed = fromSchema(isCost ? costLimit : countLimit, text);
      if ('problem' in parsed) return parsed;
      return parsed.value === undefined ? { problem: 'needs a value' } : { value: parsed.value };
    },
    format: (value) => (typeof value === 'number' ? String(value) : 'no limit'),
    suggestions: () => ['none'],
  };
}

function idListSetting(name: string, label: string, what: string): AdminSetting {
  return {
    name,
    label,
    hint: `${what} ids or mentions separated by commas; +id adds, -id removes, none empties`,
    scopes: ['server'],
    parse(text, current) {
      const trimmed = text.trim();
      if (noLimitWords.has(trimmed.toLowerCase())) return { value: [] };
      if (/^[+-]/.test(trimmed)) return changeList(trimmed, Array.isArray(current) ? current : []);
      const parsed = fromSchema(idList, trimmed);
      return 'problem' in parsed ? parsed : { value: parsed.value };
    },
    format: (value) => (Array.isArray(value) && value.length > 0 ? value.join(', ') : 'none'),
  };
}

// "+a, -b": the list in force, with a added and b taken out.
function changeList(text: string, current: readonly string[]): { value: string[] } | { problem: string } {
  const next = new Set(current);
  for (const item of text.split(/[,\s]+/).filter((part) => part !== '')) {
    const parsed = fromSchema(idList, item.replace(/^[+-]/, ''));
    if ('problem' in parsed) return parsed;
    for (const id of parsed.value) {
      if (item.startsWith('-')) next.delete(id);
      else next.add(id);
    }
  }
  return { value: [...next] };
}

function mapSetting(
  name: string,
  label: string,
  hint: string,
  schema: z.ZodType<Record<string, unknown>>,
): AdminSetting {
  return {
    name,
    label,
    hint,
    scopes: ['server'],
    parse(text) {
      if (noLimitWords.has(text.trim().toLowerCase())) return { value: {} };
      return fromSchema(schema, text);
    },
    format(value) {
      const entries = Object.entries((value ?? {}) as Record<string, unknown>);
      if (entries.length === 0) return 'none';
      return entries
        .map(([key, entry]) => `${key}=${Array.isArray(entry) ? entry.join('|') : String(entry)}`)
        .join(', ');
    },
  };
}

function choiceSetting(
  name: string,
  label: string,
  choices: readonly string[],
  scopes: readonly OverrideScope[],
): AdminSetting {
  return {
    name,
    label,
    hint: `one of ${choices.join(', ')}`,
    scopes,
    parse(text) {
      const word = text.trim().toLowerCase();
      return choices.includes(word) ? { value: word } : { problem: `must be one of ${choices.join(', ')}` };
    },
    format: (value) => (typeof value === 'string' ? value : 'not set'),
    suggestions: () => choices,
  };
}

// thread | inline | all; `mentions`, its older name for inline, is still understood.
/** TOOLS: which tools the model may call, per server or channel. */
function toolListSetting(): AdminSetting {
  return {
    name: 'TOOLS',
    label: 'Tools the model may call',
    hint: 'all, none, or tool names separated by commas (server_* for all of one server; -name switches one off: all,-files_write_file)',
    scopes: bothScopes,
    parse: (text) => fromSchema(toolPatterns, withoutContradictions(text)),
    format: (value) =>
      Array.isArray(value)
        ? value.length === 0
          ? 'none'
          : value.map((pattern) => (pattern === '*' ? 'all' : pattern)).join(', ')
        : 'all',
    suggestions: suggestToolPatterns,
    listChoices: ({ tools }) => toolPatternChoices(tools),
  };
}

// A list chosen in a form may hold `all` or `none` beside names: `all` covers the names, and
// `none` beside names means just those.
function withoutContradictions(text: string): string {
  const items = text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  const words = items.map((item) => item.toLowerCase());
  if (items.length < 2) return text;
  // `all` covers the names, but not the ones switched off beside it (`all, -files_write_file`).
  if (words.includes('all')) return ['all', ...items.filter((item) => item.startsWith('-'))].join(', ');
  return items.filter((_, index) => words[index] !== 'none').join(', ');
}

function replyModeSetting(): AdminSetting {
  const setting = choiceSetting(
    'REPLY_MODE',
    'Answers in this channel',
    ['thread', 'inline', 'all'],
    ['channel'],
  );
  return {
    ...setting,
    hint: 'thread (a thread for each mention), inline (in the channel when mentioned) or all (every message)',
    parse: (text, current) =>
      text.trim().toLowerCase() === 'mentions' ? { value: 'inline' } : setting.parse(text, current),
    format: (value) => (value === 'mentions' ? 'inline' : setting.format(value)),
  };
}

/** HISTORY_RETENTION_DAYS: days, or off; a channel may keep less or more than its server. */
function retentionSetting(): AdminSetting {
  return {
    name: 'HISTORY_RETENTION_DAYS',
    label: 'Days conversations are kept',
    hint: 'a number of days from 1 to 3650, or off for no time limit',
    scopes: bothScopes,
    parse(text) {
      // Empty means "the default" to the environment; typed into /config it means nothing.
      if (text.trim() === '') return { problem: 'needs a number of days, or off' };
      return fromSchema(retentionDays, text);
    },
    format: (value) => (typeof value === 'number' ? `${value} days` : value === null ? 'off' : 'not set'),
    suggestions: () => ['30', '90', '365', 'off'],
  };
}

/** SCHEDULE_TIMEZONE: the zone /remind and /schedule read "9:00" in here, an IANA name Intl knows. */
function timeZoneSetting(): AdminSetting {
  return {
    name: 'SCHEDULE_TIMEZONE',
    label: 'Time zone of reminders and schedules',
    hint: 'an IANA time zone like Europe/Berlin or America/New_York',
    scopes: bothScopes,
    parse(text) {
      const name = text.trim();
      try {
        // Intl gives the zone's canonical spelling ("europe/berlin" becomes Europe/Berlin).
        const canonical = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
        return { value: canonical };
      } catch {
        return { problem: `"${name.slice(0, 64)}" is not a time zone; use an IANA name like Europe/Berlin` };
      }
    },
    format: (value) => (typeof value === 'string' ? value : 'not set'),
    suggestions: () => ['UTC', 'Europe/London', 'Europe/Berlin', 'America/New_York', 'America/Los_Angeles'],
  };
}

/** Every setting /config can change, in the order it shows them. */
export const adminSettings: readonly AdminSetting[] = [
  ...(
    [
      'BUDGET_USER_DAILY',
      'BUDGET_USER_MONTHLY',
      'BUDGET_CHANNEL_DAILY',
      'BUDGET_CHANNEL_MONTHLY',
      'BUDGET_SERVER_DAILY',
      'BUDGET_SERVER_MONTHLY',
      'BUDGET_TOKENS_USER_DAILY',
      'BUDGET_TOKENS_USER_MONTHLY',
      'BUDGET_IMAGES_USER_DAILY',
      'BUDGET_IMAGES_USER_MONTHLY',
    ] as const
  ).map(budgetSetting),
  mapSetting(
    'BUDGET_ROLE_DAILY',
    'Daily budget shared by a role',
    'role=amount pairs separated by commas (a role mention works), or none',
    roleBudgets as z.ZodType<Record<string, unknown>>,
  ),
  mapSetting(
    'BUDGET_ROLE_MONTHLY',
    'Monthly budget shared by a role',
    'role=amount pairs separated by commas, or none',
    roleBudgets as z.ZodType<Record<string, unknown>>,
  ),
  idListSetting('ACCESS_ALLOW_USER_IDS', 'Only these people', 'user'),
  idListSetting('ACCESS_BLOCK_USER_IDS', 'Blocked people', 'user'),
  idListSetting('ACCESS_ALLOW_ROLE_IDS', 'Only these roles', 'role (Slack: user group)'),
  idListSetting('ACCESS_BLOCK_ROLE_IDS', 'Blocked roles', 'role (Slack: user group)'),
  idListSetting('ACCESS_ALLOW_CHANNEL_IDS', 'Only in these channels', 'channel'),
  idListSetting('ACCESS_BLOCK_CHANNEL_IDS', 'Not in these channels', 'channel'),
  idListSetting('ACCESS_SHARED_ROLE_IDS', 'Roles that may change shared memory', 'role (Slack: user group)'),
  choiceSetting('ACCESS_DMS', 'Direct messages', directMessageModes, ['server']),
  choiceSetting('MEMORY', 'What parley remembers across conversations', memoryModes, ['server']),
  toolListSetting(),
  {
    ...mapSetting(
      'TOOL_ROLE_IDS',
      'Tools only for some roles',
      'tool=role|role pairs separated by commas, like files_write_file=123456789012345678, or none',
      commandRoles as z.ZodType<Record<string, unknown>>,
    ),
    suggestions: suggestToolRoles,
  },
  mapSetting(
    'ACCESS_COMMAND_ROLE_IDS',
    'Commands only for some roles',
    'command=role|role pairs separated by commas, like imagine=123456789012345678, or none',
    commandRoles as z.ZodType<Record<string, unknown>>,
  ),
  replyModeSetting(),
  retentionSetting(),
  timeZoneSetting(),
  {
    name: 'CHAT_MODEL',
    label: 'Default model',
    hint: 'a model of /model’s list',
    scopes: bothScopes,
    parse: (text) => ({ value: text.trim() }),
    format: (value) => (typeof value === 'string' ? value : 'not set'),
    suggestions: ({ models }) => models,
  },
  {
    name: 'SYSTEM_PROMPT',
    label: 'Default system prompt',
    hint: 'the instructions the model gets before every conversation here',
    scopes: bothScopes,
    parse: (text) =>
      text.trim() === '' ? { problem: 'cannot be empty' } : { value: text.trim().slice(0, 4_000) },
    format: (value) => (typeof value === 'string' ? value : 'not set'),
    isLong: true,
  },
];

/** The setting of a name as a person typed it (any case, `-` for `_`). */
export function findAdminSetting(name: string): AdminSetting | undefined {
  const wanted = name.trim().toUpperCase().replaceAll('-', '_');
  return adminSettings.find((setting) => setting.name === wanted);
}
