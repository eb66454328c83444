import { z } from 'zod';
import { quoteSettingValue } from './quote-setting-value.ts';

/**
 * How budgets, access lists and the like are written: the same words in the environment (defaults)
 * and in `/config` (overrides), so an owner learns one grammar. Each schema takes the raw text (or
 * undefined) and names what is wrong in words a person can act on.
 */

/** The largest budget accepted, in cost units: far above any real one, it catches a slipped key. */
const largestCost = 1_000_000;

/** A cost in the gateway's currency units (`2.50`); unset means no limit. */
export const costLimit = z
  .string()
  .trim()
  .optional()
  .transform((value, context): number | undefined => {
    if (value === undefined || value === '') return undefined;
    const amount = Number(value.replace(/^\$/, ''));
    if (!/^\$?\d*\.?\d+$/.test(value) || !Number.isFinite(amount) || amount > largestCost) {
      context.addIssue({
        code: 'custom',
        message: `must be an amount in cost units, like 2.50 (0 to ${largestCost}), got ${quoteSettingValue(value)}`,
      });
      return z.NEVER;
    }
    return amount;
  });

/** A whole number of tokens or images; unset means no limit. */
export const countLimit = z
  .string()
  .trim()
  .optional()
  .transform((value, context): number | undefined => {
    if (value === undefined || value === '') return undefined;
    if (!/^\d+$/.test(value.replaceAll('_', '').replaceAll(',', ''))) {
      context.addIssue({
        code: 'custom',
        message: `must be a whole number like 20, got ${quoteSettingValue(value)}`,
      });
      return z.NEVER;
    }
    return Number(value.replaceAll('_', '').replaceAll(',', ''));
  });

/**
 * A platform id as a person may paste it: bare (`123456789012345678`, `U0ADA00001`) or as the
 * platform writes a mention of it (Discord `<@id>`, `<@!id>`, `<@&id>`, `<#id>`; Slack `<@U…>`,
 * `<#C…|name>`, `<!subteam^S…>`), so a mention typed into `/config` counts as the id it names.
 */
export function bareId(text: string): string {
  const trimmed = text.trim();
  const mention = /^<(?:@[!&]?|#|!subteam\^)([A-Za-z0-9]+)(?:\|[^>]*)?>$/.exec(trimmed);
  return mention?.[1] ?? trimmed;
}

const idPattern = /^[A-Za-z0-9]{2,40}$/;

/** Comma-separated ids (or mentions); unset is an empty list. */
export const idList = z
  .string()
  .optional()
  .transform((value, context): string[] => {
    const ids = (value ?? '')
      .split(/[,\s]+/)
      .map(bareId)
      .filter((id) => id !== '');
    const wrong = ids.filter((id) => !idPattern.test(id));
    if (wrong.length > 0) {
      context.addIssue({
        code: 'custom',
        message: `must be ids (or mentions) separated by commas; not an id: ${wrong.join(', ')}`,
      });
      return z.NEVER;
    }
    return [...new Set(ids)];
  });

/** `roleId=amount` pairs, comma-separated: a budget shared by everyone who has the role. */
export const roleBudgets = z
  .string()
  .optional()
  .transform((value, context): Record<string, number> => {
    const budgets: Record<string, number> = {};
    for (const pair of (value ?? '').split(',').filter((item) => item.trim() !== '')) {
      const [id = '', amount = ''] = pair.split('=');
      const parsedAmount = costLimit.safeParse(amount);
      if (!idPattern.test(bareId(id)) || !parsedAmount.success || parsedAmount.data === undefined) {
        context.addIssue({
          code: 'custom',
          message: `must be role=amount pairs separated by commas, like 123456789012345678=5; not one: ${quoteSettingValue(pair.trim())}`,
        });
        return z.NEVER;
      }
      budgets[bareId(id)] = parsedAmount.data;
    }
    return budgets;
  });

/** `command=roleId|roleId` pairs: the command is only for people with one of those roles. */
export const commandRoles = z
  .string()
  .optional()
  .transform((value, context): Record<string, string[]> => {
    const rules: Record<string, string[]> = {};
    for (const pair of (value ?? '').split(',').filter((item) => item.trim() !== '')) {
      const [command = '', roles = ''] = pair.split('=');
      const name = command.trim().replace(/^\//, '').toLowerCase();
      const ids = roles
        .split('|')
        .map(bareId)
        .filter((id) => id !== '');
      if (!/^[a-z0-9_-]{1,32}$/.test(name) || ids.length === 0 || ids.some((id) => !idPattern.test(id))) {
        context.addIssue({
          code: 'custom',
          message: `must be command=roleId|roleId pairs separated by commas, like imagine=123456789012345678; not one: ${quoteSettingValue(pair.trim())}`,
        });
        return z.NEVER;
      }
      rules[name] = ids;
    }
    return rules;
  });

/**
 * Which tools are on: `all`, `none`, or tool names separated by commas, where `server_*` names every
 * tool of one MCP server.
 */
export const toolPatterns = z
  .string()
  .optional()
  .transform((value, context): string[] => {
    const text = (value ?? 'all').trim().toLowerCase();
    if (text === '' || text === 'all') return ['*'];
    if (text === 'none') return [];
    // `all` among names is `*`; a name with `-` before it is switched off whatever else turns it on.
    const patterns = text
      .split(/[,\s]+/)
      .filter((item) => item !== '')
      .map((item) => (item === 'all' ? '*' : item));
    const wrong = patterns.filter(
      (pattern) => pattern !== '*' && !/^-?[a-z0-9_][a-z0-9_-]{0,63}\*?$/.test(pattern),
    );
    if (wrong.length > 0) {
      context.addIssue({
        code: 'custom',
        message: `must be all, none, or tool names like web_search,files_* separated by commas, with -name for one switched off (all,-files_write_file); not: ${wrong.map(quoteSettingValue).join(', ')}`,
      });
      return z.NEVER;
    }
    return patterns;
  });

export const memoryModes = ['off', 'user', 'place'] as const;
/** What parley remembers across conversations in a server: nothing, each person's notes, or also the place's. */
export type MemoryMode = (typeof memoryModes)[number];

export const directMessageModes = ['on', 'off', 'allowlisted'] as const;
/** Who may talk to parley in direct messages. */
export type DirectMessageMode = (typeof directMessageModes)[number];

export const directMessageMode = z
  .enum(directMessageModes, { error: 'must be on, off or allowlisted' })
  .default('on');

/** An IANA time zone name (`Europe/Berlin`), as the platform's Intl knows it. */
export const timeZone = z
  .string()
  .trim()
  .default('UTC')
  .superRefine((value, context) => {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: value });
    } catch {
      context.addIssue({
        code: 'custom',
        message: `is not a time zone: ${quoteSettingValue(value)}; use an IANA name like UTC or Europe/Berlin`,
      });
    }
  });

/** A whole number above zero, or unset for no limit. */
export const optionalPositiveCount = countLimit.refine((value) => value === undefined || value > 0, {
  message: 'must be at least 1 (leave it empty for no limit)',
});

/** How long conversations, documents and the rest are kept when HISTORY_RETENTION_DAYS is unset. */
export const defaultRetentionDays = 90;

/** The words that turn a retention period off: data is then kept as long as HISTORY_MAX_TURNS allows. */
const keepForeverWords = new Set(['off', 'none', 'forever', 'never']);

/**
 * HISTORY_RETENTION_DAYS: whole days (1 to 3650), or `off` (null: kept with no time limit). The
 * default is 90 days, applied where the variable is unset.
 */
export const retentionDays = z
  .string()
  .trim()
  .optional()
  .transform((value, context): number | null => {
    if (value === undefined || value === '') return defaultRetentionDays;
    if (keepForeverWords.has(value.toLowerCase())) return null;
    const days = /^\d+$/.test(value) ? Number(value) : Number.NaN;
    if (!Number.isInteger(days) || days < 1 || days > 3_650) {
      context.addIssue({
        code: 'custom',
        message: `must be a number of days from 1 to 3650, or off, got ${quoteSettingValue(value)}`,
      });
      return z.NEVER;
    }
    return days;
  });
