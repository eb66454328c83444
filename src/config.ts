import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { z } from 'zod';
import { type ModelCatalog, modelCatalogSchema } from './gateway/model-catalog.ts';
import { parseStoreUrl, StoreUrlError } from './state/store-url.ts';

/**
 * The only reader of the environment. Every setting is declared once here with its default; a missing
 * or malformed value stops start-up with one message that names every wrong variable and how to fix it.
 */

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const positiveInteger = (fallback: number) => z.coerce.number().int().positive().default(fallback);

const optionalText = z
  .string()
  .trim()
  .optional()
  .transform((value) => (value === '' ? undefined : value));

// `a, b,c` → ['a', 'b', 'c']; unset or empty → [].
const commaList = z
  .string()
  .optional()
  .transform((value) =>
    (value ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== ''),
  );

const environmentSchema = z
  .object({
    GATEWAY_BASE_URL: z
      .url({
        protocol: /^https?$/,
        error: 'is required: an http(s) URL ending in the API version, e.g. https://gateway.example/api/v1',
      })
      .transform((value) => value.replace(/\/+$/, '')),
    GATEWAY_API_KEY: z
      .string({ error: 'is required: the API key from the gateway console' })
      .trim()
      .min(1, 'is empty'),
    CHAT_MODEL: z.string().trim().min(1).default('gpt-4o-mini'),
    VISION_MODEL: z.string().trim().min(1).default('gpt-4o-mini'),
    IMAGE_MODEL: z.string().trim().min(1).default('gpt-image-1'),
    STRUCTURED_MODEL: z.string().trim().min(1).default('gpt-4o-mini'),
    MODEL_CAPABILITIES_FILE: z.string().trim().min(1).default('config/models.json'),
    SYSTEM_PROMPT: z
      .string()
      .trim()
      .min(1)
      .default(
        'You are parley, a helpful assistant in a group chat. Several people may talk to you; each user message starts with the name of its author. Answer concisely in Markdown.',
      ),
    STORE_URL: z.string().trim().min(1).default('sqlite://./data/parley.sqlite'),
    STORE_TIMEOUT_MS: positiveInteger(5_000),
    SHUTDOWN_GRACE_MS: positiveInteger(10_000),
    LOG_LEVEL: z.enum(logLevels, { error: `must be one of ${logLevels.join(', ')}` }).default('info'),
    LOG_FORMAT: z.enum(['json', 'pretty'], { error: 'must be json or pretty' }).optional(),
    LOG_FILE: optionalText,
    GATEWAY_TIMEOUT_MS: positiveInteger(60_000),
    GATEWAY_MAX_RETRIES: z.coerce.number().int().min(0).max(10).default(2),
    GATEWAY_FIRST_BYTE_TIMEOUT_MS: positiveInteger(20_000),
    IMAGE_TIMEOUT_MS: positiveInteger(180_000),
    HISTORY_MAX_TURNS: positiveInteger(200),
    REPLY_MAX_TOKENS: positiveInteger(1_024),
    IMAGE_MAX_BYTES: positiveInteger(10 * 1024 * 1024),
    IMAGE_OUTPUT_DIR: z.string().trim().min(1).default('out'),
    IMAGE_URL_HOSTS: commaList.pipe(
      z.array(
        z
          .string()
          .regex(
            /^(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*$/i,
            'must be host names (or *.domain for its subdomains), comma-separated',
          ),
      ),
    ),
    IMAGE_STORE_MAX_BYTES: positiveInteger(256 * 1024 * 1024),
    SELECTABLE_MODELS: commaList,
    SETTINGS_EDITORS: z
      .enum(['everyone', 'admins'], { error: 'must be everyone or admins' })
      .default('admins'),
    SETTINGS_EDITOR_USER_IDS: commaList,
    SETTINGS_EDITOR_ROLE_IDS: commaList,
    DISCORD_TOKEN: optionalText,
    DISCORD_APPLICATION_ID: optionalText.pipe(
      z
        .string()
        .regex(/^\d{17,20}$/, 'must be the numeric application id')
        .optional(),
    ),
    DISCORD_GUILD_IDS: commaList.pipe(
      z.array(z.string().regex(/^\d{17,20}$/, 'must be numeric guild ids, comma-separated')),
    ),
    DISCORD_REPLY_ALL_CHANNEL_IDS: commaList,
    DISCORD_API_URL: z
      .url({ protocol: /^https?$/, error: 'must be an http(s) URL such as https://discord.com/api' })
      .default('https://discord.com/api')
      .transform((value) => value.replace(/\/+$/, '')),
    SLACK_BOT_TOKEN: optionalText.pipe(
      z.string().startsWith('xoxb-', 'must be a bot token starting with xoxb-').optional(),
    ),
    SLACK_SIGNING_SECRET: optionalText,
    SLACK_APP_TOKEN: optionalText.pipe(
      z.string().startsWith('xapp-', 'must be an app-level token starting with xapp-').optional(),
    ),
    SLACK_COMMAND_PREFIX: z
      .string()
      .trim()
      .regex(/^[a-z0-9_-]*$/, 'may hold only a-z, 0-9, - and _')
      .default(''),
    SLACK_API_URL: z
      .url({ protocol: /^https?$/, error: 'must be an http(s) URL such as https://slack.com/api/' })
      .default('https://slack.com/api/')
      .transform((value) => (value.endsWith('/') ? value : `${value}/`)),
    SLACK_REPLY_TO_BOTS: z.stringbool({ error: 'must be true or false' }).default(false),
    PORT: z.coerce.number({ error: 'must be a port number' }).int().min(0).max(65_535).default(3000),
    // Reading documents, links and the web (issue 16).
    DOCUMENT_MAX_BYTES: positiveInteger(20 * 1024 * 1024),
    DOCUMENT_MAX_PAGES: positiveInteger(100),
    DOCUMENT_MAX_CHARACTERS: positiveInteger(400_000),
    DOCUMENT_CONTEXT_MAX_CHARACTERS: positiveInteger(120_000),
    DOCUMENT_SCANNED_PAGES: positiveInteger(5),
    DOCUMENT_MAX_UNPACKED_BYTES: positiveInteger(100 * 1024 * 1024),
    DOCUMENT_PARSE_TIMEOUT_MS: positiveInteger(30_000),
    DOCUMENT_PARSE_MAX_MEMORY_MB: positiveInteger(256),
    DOCUMENT_STORE_MAX_BYTES: positiveInteger(128 * 1024 * 1024),
    LINK_READING: z
      .enum(['on', 'off', 'mention-only'], { error: 'must be on, off or mention-only' })
      .default('on'),
    LINK_MAX_BYTES: positiveInteger(2 * 1024 * 1024),
    LINK_TIMEOUT_MS: positiveInteger(15_000),
    LINK_USER_AGENT: z
      .string()
      .trim()
      .min(1)
      .default('parley/0.1 (chat assistant; reads links people share with it; honours robots.txt)'),
    SEARCH_URL: optionalText.pipe(
      z
        .url({
          protocol: /^https?$/,
          error: 'must be the http(s) URL of a SearXNG instance, e.g. http://localhost:8080',
        })
        .optional(),
    ),
    SEARCH_MAX_RESULTS: z.coerce.number().int().min(1).max(20).default(5),
    SEARCH_TIMEOUT_MS: positiveInteger(10_000),
    LINK_PRIVATE_ORIGINS: commaList.pipe(
      z.array(
        z
          .url({
            protocol: /^https?$/,
            error: 'must be origins such as http://wiki.internal, comma-separated',
          })
          .transform((value) => new URL(value).origin),
      ),
    ),
  })
  .superRefine((values, context) => {
    if (values.SLACK_BOT_TOKEN && !values.SLACK_SIGNING_SECRET) {
      context.addIssue({
        code: 'custom',
        path: ['SLACK_SIGNING_SECRET'],
        message: 'is required with SLACK_BOT_TOKEN (Basic Information → Signing Secret)',
      });
    }
    if (values.SLACK_APP_TOKEN && !values.SLACK_BOT_TOKEN) {
      context.addIssue({
        code: 'custom',
        path: ['SLACK_BOT_TOKEN'],
        message: 'is required with SLACK_APP_TOKEN (OAuth & Permissions → Bot User OAuth Token)',
      });
    }
  });

/** Settings of the whole process, resolved from the environment (and `.env`) once at start-up. */
export interface Config {
  readonly gateway: {
    readonly baseUrl: string;
    readonly apiKey: string;
    readonly timeoutMs: number;
    /** Per attempt of a streamed reply, until the gateway starts answering. */
    readonly firstByteTimeoutMs: number;
    readonly maxRetries: number;
    /** Image generation is slow; it gets its own, longer timeout and no automatic retries. */
    readonly imageTimeoutMs: number;
  };
  readonly models: {
    readonly chat: string;
    readonly vision: string;
    readonly image: string;
    readonly structured: string;
    readonly catalog: ModelCatalog;
    /** What /model may switch a conversation to. */
    readonly selectable: readonly string[];
  };
  /** Who may change a conversation's model and system prompt. */
  readonly settingsEditors: {
    readonly policy: 'everyone' | 'admins';
    /** Allowed besides admins, by platform user id. */
    readonly userIds: readonly string[];
    /** Allowed besides admins, by platform role id (Discord roles). */
    readonly roleIds: readonly string[];
  };
  readonly systemPrompt: string;
  readonly storeUrl: string;
  /** The longest one store operation may take before the turn fails with a message. */
  readonly storeTimeoutMs: number;
  /** After SIGTERM/SIGINT, the process exits by this deadline, non-zero when it had to force. */
  readonly shutdownGraceMs: number;
  readonly log: {
    readonly level: (typeof logLevels)[number];
    readonly format: 'json' | 'pretty' | undefined;
    readonly file: string | undefined;
  };
  readonly history: {
    readonly maxTurns: number;
    readonly replyMaxTokens: number;
  };
  readonly images: {
    readonly maxInputBytes: number;
    readonly outputDirectory: string;
    /** Hosts the gateway's image links may name; empty: any host with a public address. */
    readonly urlHosts: readonly string[];
    /** Most bytes of images kept for buttons (Regenerate, Vary); the oldest go first. */
    readonly storeMaxBytes: number;
  };
  /** Set when DISCORD_TOKEN is: the bot then runs on Discord. */
  readonly discord:
    | {
        readonly token: string;
        /** Taken from READY when not configured. */
        readonly applicationId: string | undefined;
        /** Register commands in these guilds (instant) instead of globally (up to an hour). */
        readonly guildIds: readonly string[];
        /** Channels where the bot answers every message, not only mentions. */
        readonly replyAllChannelIds: readonly string[];
        /** REST base; the gateway address is asked from it. */
        readonly apiUrl: string;
      }
    | undefined;
  /** Set when SLACK_BOT_TOKEN is: the bot then runs on Slack, over Socket Mode when an app token is set. */
  readonly slack:
    | {
        readonly botToken: string;
        readonly signingSecret: string;
        /** Socket Mode when set; otherwise HTTP at POST /slack/events on `port`. */
        readonly appToken: string | undefined;
        /** Put before every command name (`/parley-imagine`) to avoid clashes with other apps. */
        readonly commandPrefix: string;
        readonly apiUrl: string;
        readonly port: number;
        /** Answer messages from other bots too (never its own). */
        readonly isReplyingToBots: boolean;
      }
    | undefined;
  /** Every secret value, so the logger can scrub them from any line, wherever they hide. */
  readonly secrets: readonly string[];
  /** Reading documents people attach (issue 16). */
  readonly documents: {
    /** Largest file read. */
    readonly maxBytes: number;
    /** Pages (sheets) read of one file at most. */
    readonly maxPages: number;
    /** Characters extracted from one file at most. */
    readonly maxCharacters: number;
    /** Characters of documents in one request to the model at most (the context may allow fewer). */
    readonly maxContextCharacters: number;
    /** Pages of a scanned PDF shown to the vision model at most. */
    readonly maxScannedPages: number;
    /** What a DOCX/XLSX may unpack to at most. */
    readonly maxUnpackedBytes: number;
    readonly parseTimeoutMs: number;
    /** Heap of the parse worker, in MB. */
    readonly parseMaxMemoryMb: number;
    /** Most bytes of extracted text kept for follow-ups and Regenerate. */
    readonly storeMaxBytes: number;
  };
  /** Reading the links in messages (issue 16). */
  readonly links: {
    readonly mode: 'on' | 'off' | 'mention-only';
    /** Bytes read of one link at most. */
    readonly maxBytes: number;
    readonly timeoutMs: number;
    readonly userAgent: string;
    /** Origins on a private network that links may lead to (an intranet wiki); others are refused. */
    readonly privateOrigins: readonly string[];
  };
  /** Web search through a SearXNG instance; undefined when SEARCH_URL is not set (issue 16). */
  readonly search:
    | {
        readonly url: string;
        /** Results given to the model for one search. */
        readonly maxResults: number;
        readonly timeoutMs: number;
      }
    | undefined;
}

/** Thrown when the environment is wrong; its message lists every problem, one per line. */
export class ConfigError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(
      `parley cannot start, the configuration has problems:\n${problems.map((problem) => `  - ${problem}`).join('\n')}\nSet these in the environment or in .env (see .env.example).`,
    );
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

export interface LoadConfigOptions {
  /** The process environment; values here win over the `.env` file. */
  readonly environment: Readonly<Record<string, string | undefined>>;
  /** Path of an optional dotenv file; a missing file is not an error. */
  readonly envFilePath?: string;
}

export function loadConfig({
  environment = process.env,
  envFilePath = '.env',
}: Partial<LoadConfigOptions> = {}): Config {
  const merged = { ...readEnvFile(envFilePath), ...withoutEmptyValues(environment) };
  const parsed = environmentSchema.safeParse(merged);
  // Every problem goes into one message, so the files named by variables are checked even when
  // other variables are wrong.
  const problems = parsed.success
    ? []
    : parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
  const catalogResult = collectProblems(() =>
    readModelCatalog(merged.MODEL_CAPABILITIES_FILE?.trim() || 'config/models.json'),
  );
  const storeResult = collectProblems(() => {
    try {
      return parseStoreUrl({ storeUrl: merged.STORE_URL?.trim() || 'sqlite://./data/parley.sqlite' });
    } catch (error) {
      if (error instanceof StoreUrlError) throw new ConfigError([`STORE_URL: ${error.message}`]);
      throw error;
    }
  });
  problems.push(...catalogResult.problems, ...storeResult.problems);
  if (!parsed.success || catalogResult.value === undefined || problems.length > 0)
    throw new ConfigError(problems);
  const values = parsed.data;
  const catalog = catalogResult.value;
  return {
    gateway: {
      baseUrl: values.GATEWAY_BASE_URL,
      apiKey: values.GATEWAY_API_KEY,
      timeoutMs: values.GATEWAY_TIMEOUT_MS,
      firstByteTimeoutMs: values.GATEWAY_FIRST_BYTE_TIMEOUT_MS,
      maxRetries: values.GATEWAY_MAX_RETRIES,
      imageTimeoutMs: values.IMAGE_TIMEOUT_MS,
    },
    models: {
      chat: values.CHAT_MODEL,
      vision: values.VISION_MODEL,
      image: values.IMAGE_MODEL,
      structured: values.STRUCTURED_MODEL,
      catalog,
      selectable: selectableModels({ values, catalog }),
    },
    settingsEditors: {
      policy: values.SETTINGS_EDITORS,
      userIds: values.SETTINGS_EDITOR_USER_IDS,
      roleIds: values.SETTINGS_EDITOR_ROLE_IDS,
    },
    systemPrompt: values.SYSTEM_PROMPT,
    storeUrl: values.STORE_URL,
    storeTimeoutMs: values.STORE_TIMEOUT_MS,
    shutdownGraceMs: values.SHUTDOWN_GRACE_MS,
    log: { level: values.LOG_LEVEL, format: values.LOG_FORMAT, file: values.LOG_FILE },
    history: { maxTurns: values.HISTORY_MAX_TURNS, replyMaxTokens: values.REPLY_MAX_TOKENS },
    images: {
      maxInputBytes: values.IMAGE_MAX_BYTES,
      outputDirectory: values.IMAGE_OUTPUT_DIR,
      urlHosts: values.IMAGE_URL_HOSTS,
      storeMaxBytes: values.IMAGE_STORE_MAX_BYTES,
    },
    discord: values.DISCORD_TOKEN
      ? {
          token: values.DISCORD_TOKEN,
          applicationId: values.DISCORD_APPLICATION_ID,
          guildIds: values.DISCORD_GUILD_IDS,
          replyAllChannelIds: values.DISCORD_REPLY_ALL_CHANNEL_IDS,
          apiUrl: values.DISCORD_API_URL,
        }
      : undefined,
    slack:
      values.SLACK_BOT_TOKEN && values.SLACK_SIGNING_SECRET
        ? {
            botToken: values.SLACK_BOT_TOKEN,
            signingSecret: values.SLACK_SIGNING_SECRET,
            appToken: values.SLACK_APP_TOKEN,
            commandPrefix: values.SLACK_COMMAND_PREFIX,
            apiUrl: values.SLACK_API_URL,
            port: values.PORT,
            isReplyingToBots: values.SLACK_REPLY_TO_BOTS,
          }
        : undefined,
    documents: {
      maxBytes: values.DOCUMENT_MAX_BYTES,
      maxPages: values.DOCUMENT_MAX_PAGES,
      maxCharacters: values.DOCUMENT_MAX_CHARACTERS,
      maxContextCharacters: values.DOCUMENT_CONTEXT_MAX_CHARACTERS,
      maxScannedPages: values.DOCUMENT_SCANNED_PAGES,
      maxUnpackedBytes: values.DOCUMENT_MAX_UNPACKED_BYTES,
      parseTimeoutMs: values.DOCUMENT_PARSE_TIMEOUT_MS,
      parseMaxMemoryMb: values.DOCUMENT_PARSE_MAX_MEMORY_MB,
      storeMaxBytes: values.DOCUMENT_STORE_MAX_BYTES,
    },
    links: {
      mode: values.LINK_READING,
      maxBytes: values.LINK_MAX_BYTES,
      timeoutMs: values.LINK_TIMEOUT_MS,
      userAgent: values.LINK_USER_AGENT,
      privateOrigins: values.LINK_PRIVATE_ORIGINS,
    },
    search: values.SEARCH_URL
      ? { url: values.SEARCH_URL, maxResults: values.SEARCH_MAX_RESULTS, timeoutMs: values.SEARCH_TIMEOUT_MS }
      : undefined,
    secrets: [
      values.GATEWAY_API_KEY,
      ...passwordOf(values.STORE_URL),
      ...passwordOf(values.SEARCH_URL ?? ''),
      ...[
        values.DISCORD_TOKEN,
        values.SLACK_BOT_TOKEN,
        values.SLACK_SIGNING_SECRET,
        values.SLACK_APP_TOKEN,
      ].filter((secret): secret is string => secret !== undefined),
    ],
  };
}

// Without a list, the chat-capable models parley knows: the configured ones and every catalog entry
// that says nothing about image generation.
function selectableModels({
  values,
  catalog,
}: {
  values: z.infer<typeof environmentSchema>;
  catalog: ModelCatalog;
}): string[] {
  if (values.SELECTABLE_MODELS.length > 0) return values.SELECTABLE_MODELS;
  const fromCatalog = Object.entries(catalog.models)
    .filter(
      ([model, capabilities]) =>
        model !== values.IMAGE_MODEL &&
        capabilities.imageInput === undefined &&
        capabilities.imageUrlOutput === undefined,
    )
    .map(([model]) => model);
  return [...new Set([values.CHAT_MODEL, values.VISION_MODEL, values.STRUCTURED_MODEL, ...fromCatalog])];
}

function readEnvFile(path: string): Record<string, string> {
  let content: string;
  try {
    content = readFileSync(path, 'utf8');
  } catch (error) {
    if (isFileMissing(error)) return {};
    throw new ConfigError([`${path} cannot be read: ${(error as Error).message}`]);
  }
  return parseEnv(content) as Record<string, string>;
}

// An empty variable (`FOO=` in a shell) means "not set", so the default or the .env value applies.
function withoutEmptyValues(
  environment: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(environment)) {
    if (value !== undefined && value !== '') result[name] = value;
  }
  return result;
}

function collectProblems<Value>(read: () => Value): {
  value: Value | undefined;
  problems: readonly string[];
} {
  try {
    return { value: read(), problems: [] };
  } catch (error) {
    if (error instanceof ConfigError) return { value: undefined, problems: error.problems };
    throw error;
  }
}

// A store password is a secret like any token: the logger scrubs it wherever it shows up.
function passwordOf(storeUrl: string): string[] {
  try {
    const password = decodeURIComponent(new URL(storeUrl).password);
    return password ? [password] : [];
  } catch {
    return [];
  }
}

function readModelCatalog(path: string): ModelCatalog {
  let content: string;
  try {
    content = readFileSync(path, 'utf8');
  } catch (error) {
    if (isFileMissing(error)) {
      throw new ConfigError([
        `MODEL_CAPABILITIES_FILE ${path} does not exist: point it at a JSON file like config/models.json`,
      ]);
    }
    throw new ConfigError([`MODEL_CAPABILITIES_FILE ${path} cannot be read: ${(error as Error).message}`]);
  }
  let json: unknown;
  try {
    json = JSON.parse(content);
  } catch (error) {
    throw new ConfigError([`MODEL_CAPABILITIES_FILE ${path} is not valid JSON: ${(error as Error).message}`]);
  }
  const catalog = modelCatalogSchema.safeParse(json);
  if (!catalog.success) {
    throw new ConfigError(
      catalog.error.issues.map(
        (issue) =>
          `MODEL_CAPABILITIES_FILE ${path}: ${issue.path.join('.') || '(top level)'} ${issue.message}`,
      ),
    );
  }
  return catalog.data;
}

function isFileMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT';
}
