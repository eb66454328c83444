import { readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { type ConnectorSetup, connectorSetupOf } from './connectors/connector-setup.ts';
import type { EnvironmentFragment, SettingsOf } from './environment/environment-fragment.ts';
import { type EnvironmentValues, environmentSchema } from './environment/environment-schema.ts';
import { withoutSecrets } from './environment/quote-setting-value.ts';
import { unknownVariableWarnings } from './environment/unknown-variables.ts';
import { type ModelCatalog, modelCatalogSchema } from './gateway/model-catalog.ts';
import { type BudgetLimits, budgetSettingNames, type RoleBudgetLimits } from './spending/budget-rules.ts';
import { parseStoreUrl, StoreUrlError } from './state/store-url.ts';
import { readToolsFile, type ToolsFileReading } from './tools/tools-file.ts';
import { UserFacingError } from './user-facing-error.ts';

/**
 * The only reader of the environment. Every setting is declared once, in
 * environment/environment-schema.ts, with its default and its meaning (`.meta`): docs/configuration.md and .env.example are generated from it
 * (`npm run config-docs`). A missing or malformed value stops start-up with one message that names
 * every wrong variable and how to fix it.
 */

/** The folder that holds package.json. Relative paths in the configuration start here, not at the working directory. */
export const projectRoot = resolve(import.meta.dirname, '..');

/** A path from the configuration, made absolute against the project root. */
export function resolveFromProjectRoot(path: string): string {
  return isAbsolute(path) ? path : resolve(projectRoot, path);
}

/** The health server's port on a platform run, where an orchestrator expects one. */
const platformHealthPort = 8080;

/** Settings of the core, resolved from the environment (and `.env`) once at start-up. */
export type Config = ReturnType<typeof toConfig>;

/** The environment fragments of the platforms, by platform name (bin/ hands them in). */
export type PlatformFragments = Readonly<Record<string, EnvironmentFragment<unknown>>>;

/** The core's settings plus each platform's: undefined for a platform its variables do not turn on. */
export type LoadedConfig<Platforms extends PlatformFragments> = Config & {
  readonly platforms: { readonly [Name in keyof Platforms]: SettingsOf<Platforms[Name]> | undefined };
};

/** Thrown when the environment is wrong; its message lists every problem, one per line. */
export class ConfigError extends UserFacingError {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    // Written for the operator starting parley; it names variables, never their secret values. Each
    // problem quotes values through quoteSettingValue; this catches a problem that quoted one itself.
    const message = `parley cannot start, the configuration has problems:\n${problems.map((problem) => `  - ${withoutSecrets(problem)}`).join('\n')}\nSet these in the environment or in .env (see .env.example and docs/configuration.md).`;
    super({ message, userMessage: message });
    this.name = 'ConfigError';
    this.problems = problems.map(withoutSecrets);
  }
}

export interface LoadConfigOptions<Platforms extends PlatformFragments> {
  /** The process environment; values here win over the `.env` file. */
  readonly environment: Readonly<Record<string, string | undefined>>;
  /** Path of an optional dotenv file; a missing file is not an error. Default: `.env` in the project folder. */
  readonly envFilePath?: string;
  /** The variables each platform adapter owns, read and checked with the core's. */
  readonly platforms: Platforms;
}

export function loadConfig<const Platforms extends PlatformFragments = Record<never, never>>({
  environment = process.env,
  envFilePath = join(projectRoot, '.env'),
  platforms = {} as Platforms,
}: Partial<LoadConfigOptions<Platforms>> = {}): LoadedConfig<Platforms> {
  // An empty value means "not set" in the file as in the environment (`cp .env.example .env` leaves
  // many empty), so the default applies.
  const merged = { ...withoutEmptyValues(readEnvFile(envFilePath)), ...withoutEmptyValues(environment) };
  const parsed = environmentSchema.safeParse(merged);
  // Every problem goes into one message, so the files named by variables are checked even when
  // other variables are wrong.
  const problems = parsed.success
    ? []
    : parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
  const catalogResult = collectProblems(() =>
    readModelCatalog(resolveFromProjectRoot(merged.MODEL_CAPABILITIES_FILE?.trim() || 'config/models.json')),
  );
  const toolsFileSetting = merged.TOOLS_FILE?.trim();
  // parley's own variables, from the schemas that declare them: the tools file may not hand them on
  // to an MCP server unless the server's entry allows them by name.
  const parleyVariableNames = new Set([
    ...Object.keys(environmentSchema.shape),
    ...Object.values(platforms).flatMap((fragment) => Object.keys(fragment.schema.shape)),
  ]);
  const toolsFile = readToolsFile({
    path: resolveFromProjectRoot(toolsFileSetting || 'config/tools.json'),
    isDefaultPath: !toolsFileSetting,
    environment: merged,
    parleyVariableNames,
    resolvePath: resolveFromProjectRoot,
  });
  const storeResult = collectProblems(() =>
    absoluteStoreUrl(merged.STORE_URL?.trim() || 'sqlite://./data/parley.sqlite'),
  );
  const readings = Object.entries(platforms).map(([name, fragment]) => ({
    name,
    fragment,
    reading: fragment.read(merged),
  }));
  for (const { reading } of readings) if ('problems' in reading) problems.push(...reading.problems);
  problems.push(...catalogResult.problems, ...storeResult.problems);
  if ('problems' in toolsFile) problems.push(...toolsFile.problems);
  const connectorSetup = connectorSetupOf({
    environment: merged,
    servers: 'problems' in toolsFile ? [] : toolsFile.servers,
  });
  problems.push(...connectorSetup.problems);
  if (
    !parsed.success ||
    catalogResult.value === undefined ||
    storeResult.value === undefined ||
    'problems' in toolsFile ||
    problems.length > 0
  )
    throw new ConfigError(problems);
  const platformSettings: Record<string, unknown> = {};
  const platformSecrets: string[] = [];
  let isOnPlatform = false;
  for (const { name, fragment, reading } of readings) {
    if ('problems' in reading) continue;
    platformSettings[name] = reading.settings;
    platformSecrets.push(...reading.secrets);
    if (fragment.isService && reading.settings !== undefined) isOnPlatform = true;
  }
  const config = toConfig({
    values: parsed.data,
    catalog: catalogResult.value,
    storeUrl: storeResult.value,
    toolsFile,
    isOnPlatform,
    connectors: connectorSetup.setup,
  });
  const connectorKeys = [merged.CONNECTOR_TOKENS_KEY, merged.CONNECTOR_TOKENS_KEY_OLD].filter(
    (value): value is string => value !== undefined && value.trim() !== '',
  );
  const knownNames = new Set([...parleyVariableNames, ...toolsFile.variableNames]);
  return {
    ...config,
    warnings: [...config.warnings, ...unknownVariableWarnings({ names: Object.keys(merged), knownNames })],
    secrets: [...config.secrets, ...platformSecrets, ...connectorKeys],
    platforms: platformSettings as LoadedConfig<Platforms>['platforms'],
  };
}

function toConfig({
  values,
  catalog,
  storeUrl,
  toolsFile,
  isOnPlatform,
  connectors,
}: {
  values: EnvironmentValues;
  catalog: ModelCatalog;
  storeUrl: string;
  toolsFile: ToolsFileReading;
  connectors: ConnectorSetup | undefined;
  /** A platform that makes parley a service (Discord, Slack) is configured: health checks are on by default. */
  isOnPlatform: boolean;
}) {
  return {
    gateway: {
      baseUrl: values.GATEWAY_BASE_URL,
      apiKey: values.GATEWAY_API_KEY,
      timeoutMs: values.GATEWAY_TIMEOUT_MS,
      /** Per attempt of a streamed reply, until the gateway starts answering. */
      firstByteTimeoutMs: values.GATEWAY_FIRST_BYTE_TIMEOUT_MS,
      maxRetries: values.GATEWAY_MAX_RETRIES,
      imageTimeoutMs: values.IMAGE_TIMEOUT_MS,
    },
    models: {
      chat: values.CHAT_MODEL,
      vision: values.VISION_MODEL,
      image: values.IMAGE_MODEL,
      structured: values.STRUCTURED_MODEL,
      /** Writes conversation titles; `TITLE_MODEL`, else the chat model. */
      title: values.TITLE_MODEL ?? values.CHAT_MODEL,
      summary: values.SUMMARY_MODEL ?? values.TITLE_MODEL ?? values.CHAT_MODEL,
      catalog,
      selectable: selectableModels({ values, catalog }) as readonly string[],
    },
    settingsEditors: {
      policy: values.SETTINGS_EDITORS,
      userIds: values.SETTINGS_EDITOR_USER_IDS as readonly string[],
      roleIds: values.SETTINGS_EDITOR_ROLE_IDS as readonly string[],
    },
    systemPrompt: values.SYSTEM_PROMPT,
    /** Relative SQLite paths are already made absolute against the project folder. */
    storeUrl,
    /** The longest one store operation may take before the turn fails with a message. */
    storeTimeoutMs: values.STORE_TIMEOUT_MS,
    /** How long a Redis conversation lock outlives a process that died holding it. */
    lockTtlMs: values.LOCK_TTL_MS,
    /** How long after a turn was sent its reply may start, so an earlier turn elsewhere goes first. */
    lockOrderWindowMs: values.LOCK_ORDER_WINDOW_MS,
    /** How long a reply's heartbeat may be silent before another process finishes it. */
    orphanAfterMs: values.ORPHAN_AFTER_MS,
    /** After SIGTERM/SIGINT, the process exits by this deadline, non-zero when it had to force. */
    shutdownGraceMs: values.SHUTDOWN_GRACE_MS,
    /** A reply slower than this tells its asker it is done (0: never). */
    notifyAfterMs: values.NOTIFY_AFTER_S * 1000,
    log: {
      level: values.LOG_LEVEL,
      format: values.LOG_FORMAT,
      file: values.LOG_FILE === undefined ? undefined : resolveFromProjectRoot(values.LOG_FILE),
    },
    history: {
      maxTurns: values.HISTORY_MAX_TURNS,
      replyMaxTokens: values.REPLY_MAX_TOKENS,
      summaryMaxCharacters: values.SUMMARY_MAX_CHARACTERS,
      /** Days data about conversations is kept (HISTORY_RETENTION_DAYS); null: no time limit. */
      retentionDays: values.HISTORY_RETENTION_DAYS,
      /** The audit trail is kept at least this many days (AUDIT_RETENTION_DAYS); undefined: as history. */
      auditRetentionDays: values.AUDIT_RETENTION_DAYS,
    },
    images: {
      maxInputBytes: values.IMAGE_MAX_BYTES,
      /** Hosts the gateway's image links may name; empty: any host with a public address. */
      urlHosts: values.IMAGE_URL_HOSTS as readonly string[],
      /** Most bytes of images kept for buttons (Regenerate, Vary); the oldest go first. */
      storeMaxBytes: values.IMAGE_STORE_MAX_BYTES,
    },
    spending: spendingConfigOf(values),
    /** Reminders and schedules (issue 28). */
    scheduling: {
      timeZone: values.SCHEDULE_TIMEZONE ?? values.BUDGET_TIMEZONE,
      schedulers: {
        policy: values.SCHEDULERS,
        roleIds: values.SCHEDULER_ROLE_IDS as readonly string[],
      },
      perPlace: values.SCHEDULES_PER_CHANNEL,
      perPerson: values.SCHEDULES_PER_PERSON,
      minIntervalMs: values.SCHEDULE_MIN_INTERVAL_MINUTES * 60_000,
      graceMs: values.SCHEDULE_GRACE_MINUTES * 60_000,
      concurrency: values.SCHEDULE_CONCURRENCY,
    },
    access: accessConfigOf(values),
    /** MEMORY: what parley remembers across conversations (per server with /config). */
    memory: values.MEMORY,
    /** Which tools the model may call, and which only some roles may have it call (TOOLS, TOOL_ROLE_IDS). */
    tools: {
      patterns: values.TOOLS as readonly string[],
      roleIds: values.TOOL_ROLE_IDS as Readonly<Record<string, readonly string[]>>,
      callLimits: {
        perRound: values.TOOL_CALLS_PER_ROUND,
        perReply: values.TOOL_CALLS_PER_REPLY,
        rounds: values.TOOL_ROUNDS_PER_REPLY,
      },
      approvalTimeoutMs: values.TOOL_APPROVAL_TIMEOUT_S * 1_000,
      /** The MCP servers of TOOLS_FILE, their `${NAME}` placeholders filled. */
      servers: toolsFile.servers,
      /** OAuth connectors (servers with auth): PUBLIC_URL and the tokens' key; undefined without one. */
      connectors,
    },
    health: {
      /** Where /healthz, /readyz and /metrics are served; undefined when off. */
      port: healthPortOf(values.HEALTH_PORT, isOnPlatform),
      /** The interface it listens on: HEALTH_HOST, 127.0.0.1 unless set. */
      host: values.HEALTH_HOST,
    },
    /** Reading documents people attach (issue 16). */
    documents: {
      maxBytes: values.DOCUMENT_MAX_BYTES,
      maxPages: values.DOCUMENT_MAX_PAGES,
      maxCharacters: values.DOCUMENT_MAX_CHARACTERS,
      maxContextCharacters: values.DOCUMENT_CONTEXT_MAX_CHARACTERS,
      maxScannedPages: values.DOCUMENT_SCANNED_PAGES,
      maxUnpackedBytes: values.DOCUMENT_MAX_UNPACKED_BYTES,
      parseTimeoutMs: values.DOCUMENT_PARSE_TIMEOUT_MS,
      /** Heap of the parse worker, in MB. */
      parseMaxMemoryMb: values.DOCUMENT_PARSE_MAX_MEMORY_MB,
      storeMaxBytes: values.DOCUMENT_STORE_MAX_BYTES,
    },
    /** Reading the links in messages (issue 16). */
    links: {
      mode: values.LINK_READING,
      maxBytes: values.LINK_MAX_BYTES,
      timeoutMs: values.LINK_TIMEOUT_MS,
      userAgent: values.LINK_USER_AGENT,
      /** Origins on a private network that links may lead to; every other private address is refused. */
      privateOrigins: values.LINK_PRIVATE_ORIGINS as readonly string[],
    },
    /** Web search through a SearXNG instance; undefined when SEARCH_URL is not set (issue 16). */
    search: values.SEARCH_URL
      ? {
          url: values.SEARCH_URL,
          maxResults: values.SEARCH_MAX_RESULTS,
          timeoutMs: values.SEARCH_TIMEOUT_MS,
        }
      : undefined,
    /** OpenTelemetry traces (issue 38); undefined when no OTLP endpoint is set: the SDK is then never loaded. */
    tracing: tracingConfigOf(values),
    /** The owner's console (issue 35); undefined unless CONSOLE_PORT is set. */
    console: consoleConfigOf(values),
    /** Things that are probably wrong but may be meant, for start-up to print. */
    warnings: [
      ...gatewayUrlWarnings(values.GATEWAY_BASE_URL),
      ...storeWarnings(storeUrl),
    ] as readonly string[],
    /** Every secret value, so the logger can scrub them from any line, wherever they hide (platforms add theirs). */
    secrets: [
      values.GATEWAY_API_KEY,
      ...passwordOf(storeUrl),
      ...passwordOf(values.SEARCH_URL ?? ''),
      // What the tools file's placeholders were filled with, and its servers' headers.
      ...toolsFile.secrets,
      // A hosted trace backend's key travels in these.
      ...Object.values(values.OTEL_EXPORTER_OTLP_HEADERS),
      ...(values.CONSOLE_DISCORD_CLIENT_SECRET === undefined ? [] : [values.CONSOLE_DISCORD_CLIENT_SECRET]),
      ...(values.CONSOLE_SLACK_CLIENT_SECRET === undefined ? [] : [values.CONSOLE_SLACK_CLIENT_SECRET]),
    ] as readonly string[],
  };
}

/** The owner's console: where it listens, how people sign in (src/console/). */
function consoleConfigOf(values: EnvironmentValues) {
  if (values.CONSOLE_PORT === undefined) return undefined;
  const discord =
    values.CONSOLE_DISCORD_CLIENT_ID !== undefined && values.CONSOLE_DISCORD_CLIENT_SECRET !== undefined
      ? {
          clientId: values.CONSOLE_DISCORD_CLIENT_ID,
          clientSecret: values.CONSOLE_DISCORD_CLIENT_SECRET,
          oauthUrl: values.CONSOLE_DISCORD_OAUTH_URL ?? 'https://discord.com',
        }
      : undefined;
  const slack =
    values.CONSOLE_SLACK_CLIENT_ID !== undefined && values.CONSOLE_SLACK_CLIENT_SECRET !== undefined
      ? {
          clientId: values.CONSOLE_SLACK_CLIENT_ID,
          clientSecret: values.CONSOLE_SLACK_CLIENT_SECRET,
          oauthUrl: values.CONSOLE_SLACK_OAUTH_URL ?? 'https://slack.com',
        }
      : undefined;
  return {
    port: values.CONSOLE_PORT,
    host: values.CONSOLE_HOST,
    publicUrl: values.CONSOLE_PUBLIC_URL,
    sessionMs: values.CONSOLE_SESSION_HOURS * 3_600_000,
    discord,
    slack,
  };
}

/** Where spans go and which are kept: the standard `OTEL_*` variables, for the SDK (src/tracing/). */
function tracingConfigOf(values: EnvironmentValues) {
  const tracesUrl =
    values.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
    (values.OTEL_EXPORTER_OTLP_ENDPOINT === undefined
      ? undefined
      : `${values.OTEL_EXPORTER_OTLP_ENDPOINT}/v1/traces`);
  if (tracesUrl === undefined || values.OTEL_SDK_DISABLED === 'true') return undefined;
  return {
    tracesUrl,
    headers: values.OTEL_EXPORTER_OTLP_HEADERS,
    serviceName: values.OTEL_SERVICE_NAME,
    sampler: values.OTEL_TRACES_SAMPLER,
    samplerRatio: values.OTEL_TRACES_SAMPLER_ARG ?? 1,
    /** Prompts and completions on the chat spans (scrubbed of secrets); off unless asked for. */
    isContentCaptured: values.OTEL_GENAI_CAPTURE_CONTENT === 'on',
  };
}

// Spend and access: the defaults that /config overrides per server or channel.
function spendingConfigOf(values: EnvironmentValues) {
  const limits: BudgetLimits = Object.fromEntries(budgetSettingNames.map((name) => [name, values[name]]));
  const roleLimits: RoleBudgetLimits = {
    BUDGET_ROLE_DAILY: values.BUDGET_ROLE_DAILY,
    BUDGET_ROLE_MONTHLY: values.BUDGET_ROLE_MONTHLY,
  };
  return {
    limits,
    roleLimits,
    /** Budget days start at midnight, months on the 1st, here. */
    timeZone: values.BUDGET_TIMEZONE,
    fallbackModel: values.BUDGET_FALLBACK_MODEL,
    /** Requests to the model one person may make a minute; undefined: no limit. */
    userRequestsPerMinute: values.RATE_USER_PER_MINUTE,
  };
}

function accessConfigOf(values: EnvironmentValues) {
  return {
    allowUserIds: values.ACCESS_ALLOW_USER_IDS as readonly string[],
    blockUserIds: values.ACCESS_BLOCK_USER_IDS as readonly string[],
    allowRoleIds: values.ACCESS_ALLOW_ROLE_IDS as readonly string[],
    blockRoleIds: values.ACCESS_BLOCK_ROLE_IDS as readonly string[],
    allowChannelIds: values.ACCESS_ALLOW_CHANNEL_IDS as readonly string[],
    blockChannelIds: values.ACCESS_BLOCK_CHANNEL_IDS as readonly string[],
    directMessages: values.ACCESS_DMS,
    groupDirectMessages: values.ACCESS_GROUP_DMS,
    userInstalls: values.ACCESS_USER_INSTALLS,
    commandRoleIds: values.ACCESS_COMMAND_ROLE_IDS as Readonly<Record<string, readonly string[]>>,
    sharedWriterRoleIds: values.ACCESS_SHARED_ROLE_IDS as readonly string[],
  };
}

function healthPortOf(setting: number | 'off' | undefined, isOnPlatform: boolean): number | undefined {
  if (setting === 'off') return undefined;
  return setting ?? (isOnPlatform ? platformHealthPort : undefined);
}

// The reference puts the API version at the end of the base URL (/api/v1). Another shape may be a
// proxy that knows better, so it is a warning; a 404 from it is reported with the URL tried.
function gatewayUrlWarnings(baseUrl: string): string[] {
  if (/\/v\d+$/.test(new URL(baseUrl).pathname)) return [];
  return [
    `GATEWAY_BASE_URL ${baseUrl} does not end in an API version such as /api/v1; chat requests will go to ${baseUrl}/chat/completions. If the gateway answers "not found", add the version: e.g. ${baseUrl}/api/v1`,
  ];
}

/**
 * A Postgres store is shared, but what keeps processes apart is not in it: warned, not refused,
 * because one process on Postgres is right, and parley cannot count the processes an owner runs.
 */
export const postgresStoreWarning =
  'STORE_URL is PostgreSQL: history, settings and /config live there, but conversation locks, budget counters and duplicate-event checks stay in this process (they need Redis). Run ONE parley process on it; for several processes use STORE_URL=redis://…';

function storeWarnings(storeUrl: string): string[] {
  return parseStoreUrl({ storeUrl }).kind === 'postgres' ? [postgresStoreWarning] : [];
}

// Without a list, the chat-capable models parley knows: the configured ones and every catalog entry
// that says nothing about image generation.
function selectableModels({
  values,
  catalog,
}: {
  values: EnvironmentValues;
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

// `sqlite://./data/x.sqlite` becomes `sqlite:///<project>/data/x.sqlite`, so the bot finds its history
// whichever folder it was started from.
function absoluteStoreUrl(storeUrl: string): string {
  try {
    const location = parseStoreUrl({ storeUrl, workingDirectory: projectRoot });
    return location.kind === 'sqlite' ? `sqlite://${location.filePath}` : storeUrl;
  } catch (error) {
    if (error instanceof StoreUrlError) throw new ConfigError([`STORE_URL: ${error.message}`]);
    throw error;
  }
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

// An empty variable (`FOO=` in a shell or in .env) means "not set", so the default applies.
function withoutEmptyValues(
  environment: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(environment)) {
    if (value !== undefined && value.trim() !== '') result[name] = value;
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
