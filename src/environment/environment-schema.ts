import { z } from 'zod';
import { consoleSettings } from './console-settings.ts';
import { readingSettings } from './reading-settings.ts';
import { schedulingSettings } from './scheduling-settings.ts';
import {
  commaList,
  document,
  gatewayBaseUrl,
  healthPort,
  logLevels,
  optionalText,
  section,
  text,
  wholeNumber,
} from './setting-schemas.ts';
import {
  commandRoles,
  costLimit,
  countLimit,
  directMessageMode,
  idList,
  memoryModes,
  optionalPositiveCount,
  retentionDays,
  roleBudgets,
  timeZone,
  toolPatterns,
} from './spend-access-values.ts';
import { tracingSettings } from './tracing-settings.ts';

const gatewaySettings = section('Model Gateway', {
  GATEWAY_BASE_URL: document(gatewayBaseUrl, {
    description:
      'Base URL of the gateway, ending in the API version: requests go to {base}/chat/completions and {base}/images/generations.',
    typeText: 'http(s) URL',
    example: 'https://gateway.example/api/v1',
  }),
  GATEWAY_API_KEY: document(
    z.string({ error: 'is required: the API key from the gateway console' }).trim().min(1, 'is empty'),
    {
      description: 'API key from the gateway console. It never appears in logs; never commit it.',
      typeText: 'secret text',
    },
  ),
  GATEWAY_TIMEOUT_MS: document(wholeNumber({ min: 1, fallback: 60_000 }), {
    description:
      'Per-attempt request timeout, and the longest silence allowed inside a streamed reply, in milliseconds.',
  }),
  GATEWAY_MAX_RETRIES: document(wholeNumber({ min: 0, max: 10, fallback: 2 }), {
    description: 'How often 429, 5xx and connection errors are retried before any text arrived.',
  }),
  GATEWAY_FIRST_BYTE_TIMEOUT_MS: document(wholeNumber({ min: 1, fallback: 20_000 }), {
    description:
      'Per attempt, how long a streamed reply may take to start, in milliseconds. Shorter than GATEWAY_TIMEOUT_MS, so a gateway that never answers is retried or given up on in seconds; after 5 s the person sees how long it has waited and whether the model service has answered at all, brought up to date every 5 s.',
  }),
  IMAGE_TIMEOUT_MS: document(wholeNumber({ min: 1, fallback: 180_000 }), {
    description:
      'The longest an image generation may take, in milliseconds. Image requests are never retried automatically: a slow generation may still be billed, and repeating it would bill it twice.',
  }),
});

const modelSettings = section('Models', {
  CHAT_MODEL: document(text('gpt-4o-mini'), {
    description: 'The model that answers chat, as the gateway names it.',
  }),
  VISION_MODEL: document(text('gpt-4o-mini'), {
    description: 'Answers turns with images when the chat model cannot see.',
  }),
  IMAGE_MODEL: document(text('gpt-image-1'), { description: 'Draws for /imagine.' }),
  STRUCTURED_MODEL: document(text('gpt-4o-mini'), { description: 'Answers /summarize and /extract.' }),
  TITLE_MODEL: document(optionalText, {
    description:
      'Names a conversation (a Discord thread, a Slack agent thread) after its first exchange, in at most 60 characters. A small, fast model is enough.',
    typeText: 'model name',
    defaultText: 'the chat model',
  }),
  SUMMARY_MODEL: document(optionalText, {
    description:
      "Folds a conversation's older turns into its rolling summary once they fill half the model's context, so they are summarised rather than dropped; where MEMORY is on and the chat model is not given the remember tool (no function calling, or TOOLS=none), it also reads each message for facts to remember. A small, fast model is enough.",
    typeText: 'model name',
    defaultText: 'the title model',
  }),
  MODEL_CAPABILITIES_FILE: document(text('config/models.json'), {
    description:
      'JSON file with what each model supports (vision, jsonSchema, imageUrlOutput, imageInput, aspectRatio, contextTokens) and what it costs (price); unlisted models get its "defaults". A relative path starts at the project folder.',
    typeText: 'path',
  }),
  SYSTEM_PROMPT: document(
    text(
      'You are parley, a helpful assistant in a group chat. Several people may talk to you; each user message starts with the name of its author. Answer concisely in Markdown.',
    ),
    { description: 'The default system prompt; /system changes it per conversation.' },
  ),
});

const conversationSettings = section('Conversations', {
  STORE_URL: document(text('sqlite://./data/parley.sqlite'), {
    description:
      'Where history and settings live: sqlite://./data/parley.sqlite (no server; a relative path starts at the project folder), sqlite:///absolute/path.sqlite, redis://[:password@]host:6379[/db] (several bot processes share it: history, settings, budgets, conversation locks, event dedupe), postgres://user@host:5432/database (history and settings only: locks, budgets and dedupe stay in one process, so run one), or memory:// (forgotten on exit; for tests).',
    typeText: 'store URL',
  }),
  STORE_TIMEOUT_MS: document(wholeNumber({ min: 1, fallback: 5_000 }), {
    description:
      'The longest one store operation may take, in milliseconds, before the turn fails with a message instead of hanging (a Redis that is up but not answering).',
  }),
  LOCK_TTL_MS: document(wholeNumber({ min: 1_000, fallback: 30_000 }), {
    description:
      'With a redis:// store: how long a conversation stays locked after the process answering it died, in milliseconds. A live process extends its lock every third of this while it answers.',
  }),
  LOCK_ORDER_WINDOW_MS: document(wholeNumber({ min: 0, fallback: 250 }), {
    description:
      "With a redis:// store: how long after a message was sent (by the platform's clock) its reply may start, in milliseconds, so that an earlier message of the same conversation that reached another process first is answered first. Messages usually reach a bot later than this, so it rarely adds a wait; raise it when processes are far behind their events.",
  }),
  ORPHAN_AFTER_MS: document(wholeNumber({ min: 1_000, fallback: 20_000 }), {
    description:
      "With a shared store (redis://, postgres://): how long a reply's heartbeat may be silent, in milliseconds, before another live process finishes it for the process that died (its text, a note, Regenerate). Processes renew their heartbeats every quarter of this and look for orphans every half.",
  }),
  HISTORY_MAX_TURNS: document(wholeNumber({ min: 1, fallback: 200 }), {
    description:
      'Turns kept per conversation; older ones are deleted from the store, after being folded into its summary.',
  }),
  SUMMARY_MAX_CHARACTERS: document(wholeNumber({ min: 200, max: 20_000, fallback: 2_000 }), {
    description:
      "The longest a conversation's rolling summary may be, in characters. A summary is written only when turns would otherwise fall out of the context.",
  }),
  HISTORY_RETENTION_DAYS: document(retentionDays, {
    description:
      'How long parley keeps what it holds about conversations, in days: turns, the text of documents, images kept for buttons, button payloads, ratings, replies in flight and the index of who wrote where. Older ones are removed by a sweep every hour (SQLite then gives the space back). off keeps them with no time limit (HISTORY_MAX_TURNS still applies). /config changes it per server or channel. See docs/data.md.',
    typeText: 'days | off',
    defaultText: '90',
  }),
  AUDIT_RETENTION_DAYS: document(optionalPositiveCount, {
    description:
      "How long the audit trail (/audit: settings changed, refusals, tool calls, scheduled runs, shared memory, /forget and /export) is kept at least, in days. Unset: as long as the place's HISTORY_RETENTION_DAYS; set, the longer of the two.",
    typeText: 'days',
    defaultText: "the place's HISTORY_RETENTION_DAYS",
  }),
  REPLY_MAX_TOKENS: document(wholeNumber({ min: 1, fallback: 1_024 }), {
    description:
      "Tokens reserved for each reply (sent as max_tokens); the rest of the model's context holds history.",
  }),
});

const imageSettings = section('Images', {
  IMAGE_MAX_BYTES: document(wholeNumber({ min: 1, fallback: 10 * 1024 * 1024 }), {
    description: 'Largest image a person can attach, in bytes.',
  }),
  IMAGE_URL_HOSTS: document(
    commaList.pipe(
      z.array(
        z
          .string()
          .regex(
            /^(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*$/i,
            'must be host names (or *.domain for its subdomains), comma-separated',
          ),
      ),
    ),
    {
      description:
        "Hosts the gateway's image links may point at (exact names, or *.example.com for subdomains), comma-separated. Empty: any host with a public address. Private, loopback and link-local addresses are always refused, except the gateway's own (GATEWAY_BASE_URL).",
      typeText: 'host names',
    },
  ),
  IMAGE_STORE_MAX_BYTES: document(wholeNumber({ min: 1, fallback: 256 * 1024 * 1024 }), {
    description:
      'Most bytes of images kept for Regenerate and Vary (one copy each, 7 days); the oldest go first.',
  }),
});

const loggingSettings = section('Logging', {
  LOG_LEVEL: document(
    z.enum(logLevels, { error: `must be one of ${logLevels.join(', ')}` }).default('info'),
    { description: 'The least severe level written.' },
  ),
  LOG_FORMAT: document(z.enum(['json', 'pretty'], { error: 'must be json or pretty' }).optional(), {
    description: 'How log lines look.',
    defaultText: 'pretty on a terminal, json otherwise',
  }),
  LOG_FILE: document(optionalText, {
    description: 'Log file; its folder is created. A relative path starts at the project folder.',
    typeText: 'path',
    defaultText: 'standard error; the terminal chat logs to data/parley.log',
  }),
});

const commandSettings = section('Commands', {
  SELECTABLE_MODELS: document(commaList, {
    description: 'Models /model may switch a conversation to.',
    typeText: 'comma-separated model ids',
    defaultText:
      'the chat, vision and structured models plus every model in MODEL_CAPABILITIES_FILE that is not an image model',
  }),
  SETTINGS_EDITORS: document(
    z.enum(['everyone', 'admins'], { error: 'must be everyone or admins' }).default('admins'),
    {
      description:
        "Who may change a conversation's model (/model) and system prompt (/system). Admins: Discord Manage Server or Administrator; Slack workspace admins and owners.",
    },
  ),
  SETTINGS_EDITOR_USER_IDS: document(commaList, {
    description: 'Also allowed to change settings, by platform user id.',
    typeText: 'comma-separated ids',
  }),
  SETTINGS_EDITOR_ROLE_IDS: document(commaList, {
    description: 'Also allowed to change settings, by Discord role id.',
    typeText: 'comma-separated ids',
  }),
});

const operationsSettings = section('Operations', {
  HEALTH_PORT: document(healthPort, {
    description:
      'Port of the health and metrics server: GET /healthz, GET /readyz and GET /metrics (Prometheus). off turns it off.',
    typeText: 'port or off',
    defaultText: '8080 on Discord or Slack; off in the terminal chat',
  }),
  HEALTH_HOST: document(text('127.0.0.1'), {
    description:
      "The interface the health and metrics server listens on. /metrics and /readyz answer without authentication, so the default is this machine alone; 0.0.0.0 (or ::) takes requests from every interface, which a container needs when its port is published or Prometheus or a Kubernetes probe reaches it over the network (compose.yaml sets it). The image's own HEALTHCHECK asks 127.0.0.1.",
    typeText: 'host name or IP address',
  }),
  NOTIFY_AFTER_S: document(wholeNumber({ min: 0, fallback: 60 }), {
    description:
      'A reply that took longer than this many seconds, from the question to its last word, lets the asker know it is done, since an edit notifies nobody: on Discord a ping of the asker alone, or in a thread a fresh message (DISCORD_NOTIFY_WITH). 0 turns it off.',
  }),
  SHUTDOWN_GRACE_MS: document(wholeNumber({ min: 1, fallback: 10_000 }), {
    description:
      'After SIGTERM or SIGINT, how long parley may take to stop its replies and close, in milliseconds; past it, the process exits anyway with code 1.',
  }),
});

const costBudget = (description: string) =>
  document(costLimit, {
    description: `${description}, in the gateway's cost units (the prices of config/models.json). /config overrides it per server or channel.`,
    typeText: 'amount',
  });
const countBudget = (description: string) =>
  document(countLimit, {
    description: `${description}. /config overrides it per server or channel.`,
    typeText: 'whole number',
  });
const ids = (description: string) => document(idList, { description, typeText: 'comma-separated ids' });

/** Budgets, the request rate and who may use parley; every budget unset means no limit. */
const spendAndAccessSettings = section('Spend and access', {
  BUDGET_USER_DAILY: costBudget('Most one person may spend a day'),
  BUDGET_USER_MONTHLY: costBudget('Most one person may spend a month'),
  BUDGET_ROLE_DAILY: document(roleBudgets, {
    description:
      'Most everyone with a role (Discord) or in a user group (Slack) may spend together a day, as role=amount pairs, e.g. 123456789012345678=5,S0ABCDEF12=2. /config overrides it per server.',
    typeText: 'role=amount, …',
  }),
  BUDGET_ROLE_MONTHLY: document(roleBudgets, {
    description: 'The same, a month.',
    typeText: 'role=amount, …',
  }),
  BUDGET_CHANNEL_DAILY: costBudget('Most one channel (with its threads) may spend a day'),
  BUDGET_CHANNEL_MONTHLY: costBudget('Most one channel may spend a month'),
  BUDGET_SERVER_DAILY: costBudget('Most one Discord server or Slack workspace may spend a day'),
  BUDGET_SERVER_MONTHLY: costBudget('Most one server or workspace may spend a month'),
  BUDGET_GLOBAL_DAILY: document(costLimit, {
    description:
      "Most this whole process may spend a day, in cost units: the operator's cap, which /config cannot change.",
    typeText: 'amount',
  }),
  BUDGET_GLOBAL_MONTHLY: document(costLimit, {
    description: 'Most this whole process may spend a month; /config cannot change it.',
    typeText: 'amount',
  }),
  BUDGET_TOKENS_USER_DAILY: countBudget('Most tokens (prompt and reply) one person may use a day'),
  BUDGET_TOKENS_USER_MONTHLY: countBudget('Most tokens one person may use a month'),
  BUDGET_IMAGES_USER_DAILY: countBudget('Most images one person may have drawn a day'),
  BUDGET_IMAGES_USER_MONTHLY: countBudget('Most images one person may have drawn a month'),
  BUDGET_TIMEZONE: document(timeZone, {
    description:
      'Where a budget day starts: days begin at midnight and months on the 1st in this IANA time zone.',
    typeText: 'time zone',
  }),
  BUDGET_FALLBACK_MODEL: document(optionalText, {
    description:
      "A cheaper chat model that answers instead when a person's budget cannot pay for the conversation's model but can pay for this one; the reply says so.",
    typeText: 'model id',
    defaultText: 'none: such requests are refused',
  }),
  RATE_USER_PER_MINUTE: document(optionalPositiveCount, {
    description:
      'Most requests to the model (replies, drawings, summaries) one person may make a minute; more get a friendly "slow down".',
    typeText: 'whole number',
  }),
  ACCESS_ALLOW_USER_IDS: ids(
    'When set (or ACCESS_ALLOW_ROLE_IDS is), only these people, and people with an allowed role, may use parley.',
  ),
  ACCESS_BLOCK_USER_IDS: ids('These people may not use parley (block wins over allow).'),
  ACCESS_ALLOW_ROLE_IDS: ids('When set, people with one of these roles (Slack: user groups) may use parley.'),
  ACCESS_BLOCK_ROLE_IDS: ids('People with one of these roles or user groups may not use parley.'),
  ACCESS_ALLOW_CHANNEL_IDS: ids('When set, parley answers only in these channels (and their threads).'),
  ACCESS_BLOCK_CHANNEL_IDS: ids('parley does not answer in these channels (and their threads).'),
  ACCESS_SHARED_ROLE_IDS: ids(
    "Besides admins, people with one of these roles (Slack: user groups) may change what everyone at the place shares: the server's memory notes (MEMORY=place), whether they ask with /memory or the model does on their turn.",
  ),
  ACCESS_DMS: document(directMessageMode, {
    description:
      'Direct messages: on (anyone who may use parley), off, or allowlisted (only people in ACCESS_ALLOW_USER_IDS).',
  }),
  ACCESS_GROUP_DMS: document(directMessageMode.default('off'), {
    description:
      'Group DMs (Discord, through a user install; Slack multi-person DMs): off by default, because everyone in one can spend your balance; on, or allowlisted.',
  }),
  ACCESS_USER_INSTALLS: document(directMessageMode.default('off'), {
    description:
      "Discord user installs: a person who adds parley to their own account can use its commands in DMs with friends and in servers without parley, on your balance. Off by default; on, or allowlisted. Discord's Public Bot switch decides who may add parley at all.",
  }),
  MEMORY: document(z.enum(memoryModes, { error: 'must be off, user or place' }).default('off'), {
    description:
      "What parley remembers across conversations of a server or workspace: off, user (short notes about each person, which follow them across the server's channels, never to another server or into DMs) or place (also notes about the server everyone shares). People see and remove theirs with /memory. /config sets it per server.",
  }),
  TOOLS: document(toolPatterns, {
    description:
      'Which tools the model may call: all (web_search and read_url when SEARCH_URL is set, and every tool of the servers in TOOLS_FILE), none, or names separated by commas, where files_* is every tool of the server files; -name switches one off whatever else turns it on (all,-files_write_file: every tool but that one, including tools a server adds later). /config narrows it per server or channel.',
    typeText: 'all | none | name, server_*, …',
  }),
  TOOL_ROLE_IDS: document(commandRoles, {
    description:
      'Tools only some roles may have the model call, as tool=roleId|roleId pairs, e.g. files_write_file=123456789012345678. Admins may always.',
    typeText: 'tool=role|role, …',
  }),
  ACCESS_COMMAND_ROLE_IDS: document(commandRoles, {
    description:
      'Commands only some roles may use, as command=roleId|roleId pairs, e.g. imagine=123456789012345678. Admins may always use them; chat counts as the command chat.',
    typeText: 'command=role|role, …',
  }),
});

/**
 * Every variable of the core, grouped by section; each platform adapter adds its own fragment
 * (environment-fragment.ts). The generated docs walk this and the fragments.
 */
export const environmentSchema = z.object({
  ...gatewaySettings,
  ...modelSettings,
  ...conversationSettings,
  ...imageSettings,
  ...loggingSettings,
  ...commandSettings,
  ...readingSettings,
  ...operationsSettings,
  ...tracingSettings,
  ...consoleSettings,
  ...spendAndAccessSettings,
  ...schedulingSettings,
});

/** The environment as parsed: defaults filled in, lists split, URLs checked. */
export type EnvironmentValues = z.infer<typeof environmentSchema>;
