import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type AccessGate, createAccessGate } from './access/access-gate.ts';
import { createOverrideStore, type OverrideStore } from './administration/override-store.ts';
import {
  createPlaceSettingsReader,
  environmentDefaults,
  type PlaceSettingsReader,
} from './administration/place-settings.ts';
import { type AuditLog, createAuditLog } from './audit/audit-log.ts';
import { type Config, projectRoot } from './config.ts';
import { createConnectLinks } from './connectors/connect-links.ts';
import { createConnectionStore } from './connectors/connection-store.ts';
import { type Connectors, createConnectors } from './connectors/connectors.ts';
import { answerQuestionWith, createElicitationQuestions } from './connectors/elicitation-questions.ts';
import { createConversationSummaries } from './conversation/conversation-summaries.ts';
import { type ConversationEngine, createConversationEngine } from './conversation/engine.ts';
import { createHistoryStore, type HistoryStore } from './conversation/history-store.ts';
import { createReplyJournal, type ReplyJournal } from './conversation/reply-journal.ts';
import { createSettingsStore, type SettingsStore } from './conversation/settings-store.ts';
import { createUsageLedger, type UsageLedger } from './conversation/usage-ledger.ts';
import { systemClock } from './delivery/clock.ts';
import { createDocumentReader, type DocumentReader } from './documents/document-reader.ts';
import { createDocumentStore } from './documents/document-store.ts';
import { createGateway, type Gateway } from './gateway/gateway-client.ts';
import { createLinkReader, type LinkReader } from './links/link-reader.ts';
import type { Logger } from './log.ts';
import { createMemoryBook, type MemoryBook } from './memory/memory-book.ts';
import { createMemoryTools } from './memory/memory-tools.ts';
import { documentKeptData } from './retention/document-retention.ts';
import {
  documentHashesCited,
  historyKeptData,
  listConversations,
  type RunInConversation,
} from './retention/history-retention.ts';
import { journalKeptData } from './retention/journal-retention.ts';
import { createKeptDataRegistry, type KeptDataRegistry } from './retention/kept-data.ts';
import { memoryKeptData } from './retention/memory-retention.ts';
import { createPeopleIndex, indexedHistory } from './retention/people-index.ts';
import { createPersonData, type PersonData } from './retention/person-data.ts';
import { createRetentionSweep, type RetentionSweep } from './retention/retention-sweep.ts';
import { scheduleKeptData } from './retention/schedule-retention.ts';
import { summaryKeptData } from './retention/summary-retention.ts';
import { timeZoneKeptData } from './retention/time-zone-retention.ts';
import { usageKeptData } from './retention/usage-retention.ts';
import { createWorkspaceData, type WorkspaceData } from './retention/workspace-data.ts';
import { openScheduler } from './scheduling/open-scheduler.ts';
import { createPersonalTimeZones, type PersonalTimeZones } from './scheduling/personal-time-zones.ts';
import type { Scheduler } from './scheduling/scheduler.ts';
import { createReadPage } from './search/read-page.ts';
import { createSearchTools } from './search/search-tools.ts';
import { createSearxngProvider } from './search/searxng-provider.ts';
import { openSpendBackend } from './spending/spend-backend.ts';
import { createSpendGuard, type SpendGuard } from './spending/spend-guard.ts';
import { type Coordination, openCoordination } from './state/coordination.ts';
import { openStore, type Store } from './state/create-store.ts';
import { type McpServers, startMcpServers } from './tools/mcp-servers.ts';
import { createToolApprovals, type ToolApprovals } from './tools/tool-approvals.ts';
import { createToolReplies } from './tools/tool-replies.ts';
import { createToolbox, type Toolbox } from './tools/toolbox.ts';

/** The longest one web_search or read_url call may take (a page read follows up to 5 redirects). */
const searchToolDeadlineMs = 30_000;

/** The platform-neutral core every adapter is given. */
export interface App {
  readonly config: Config;
  readonly logger: Logger;
  readonly gateway: Gateway;
  readonly engine: ConversationEngine;
  readonly history: HistoryStore;
  readonly settings: SettingsStore;
  readonly usage: UsageLedger;
  readonly journal: ReplyJournal;
  /** Budgets and the request rate, checked before every gateway call. */
  readonly spending: SpendGuard;
  /** Who may use parley where; refused people get one private notice an hour. */
  readonly access: AccessGate;
  /** What was done at each place and on whose authority: /audit, /export, the sweep. */
  readonly audit: AuditLog;
  /** What /config changed, per server and channel. */
  readonly overrides: OverrideStore;
  /** The settings in force at a place: /config's overrides over the environment. */
  readonly places: PlaceSettingsReader;
  /** Reads documents (attachments, links, `--file` of commands), each once. */
  readonly documents: DocumentReader;
  /** Fetches links: those in messages, and those a model asks for (`read_url`). */
  readonly links: LinkReader;
  /**
   * Conversation locks and event dedupe: shared by every process on a redis:// store, this
   * process's own on any other.
   */
  readonly coordination: Coordination;
  /** Every tool the model may be offered (built-in and MCP servers'), before each place's rules. */
  readonly toolbox: Toolbox;
  /** Acting tool calls waiting for their asker's Approve or Deny. */
  readonly toolApprovals: ToolApprovals;
  /** What parley remembers across conversations, per person and place (MEMORY). */
  readonly memory: MemoryBook;
  /** Reminders and schedules; undefined on a store they cannot run on (postgres://). Started by bin/. */
  readonly scheduler: Scheduler | undefined;
  /** The time zone each person set for their own reminders (/timezone). */
  readonly personalTimeZones: PersonalTimeZones;
  /**
   * Every kind of data parley keeps, for the retention sweep, /forget and /export; what is built
   * outside the core (button payloads, ratings) and the memory register here too.
   */
  readonly keptData: KeptDataRegistry;
  /** Removes what is older than HISTORY_RETENTION_DAYS, hourly (`start` in the process entry). */
  readonly retention: RetentionSweep;
  /** Everything parley holds about one person: /forget, /export. */
  readonly personData: PersonData;
  /** Everything kept of one server or workspace, removed at once (a Slack uninstall, when asked). */
  readonly workspaceData: WorkspaceData;
  /** The MCP servers of TOOLS_FILE, connecting in the background; their tools go in the toolbox. */
  readonly mcpServers: McpServers;
  /** OAuth connectors of TOOLS_FILE (servers with auth), each person's own; undefined without one. */
  readonly connectors: Connectors | undefined;
  /** The store, opened once: every use of it (history, settings, actions…) is a namespace on one connection. */
  readonly store: Store;
  /** Resolves when the store answers a read, rejects when it cannot: the readiness check. */
  probeStore(): Promise<unknown>;
  /** Closes stores and connections; the process can then exit on its own. */
  close(): Promise<void>;
}

/** How long extracted text is kept after its last use: as long as the buttons that may need it. */
const documentLifetimeMs = 7 * 24 * 60 * 60 * 1000;

/** How often the retention sweep runs (one process of several on Redis). */
const retentionSweepIntervalMs = 60 * 60_000;

/** Links read from one message at most. */
const maxLinksPerMessage = 3;

/** The composition root of the core: everything is built here from config, and only here. */
export function createApp({ config, logger }: { config: Config; logger: Logger }): App {
  const gateway = createGateway({
    baseUrl: config.gateway.baseUrl,
    apiKey: config.gateway.apiKey,
    timeoutMs: config.gateway.timeoutMs,
    firstByteTimeoutMs: config.gateway.firstByteTimeoutMs,
    maxRetries: config.gateway.maxRetries,
    catalog: config.models.catalog,
    logger,
    maxImageBytes: config.images.maxInputBytes * 4,
    imageTimeoutMs: config.gateway.imageTimeoutMs,
    imageUrlHosts: config.images.urlHosts,
  });
  const store = openStore({ storeUrl: config.storeUrl, logger, operationTimeoutMs: config.storeTimeoutMs });
  const historyKeyv = store.namespace('history');
  const settingsKeyv = store.namespace('settings');
  const storedHistory = createHistoryStore({ store: historyKeyv, maxTurns: config.history.maxTurns, logger });
  const settings = createSettingsStore({ store: settingsKeyv });
  const spendBackend = openSpendBackend({
    store,
    userRequestsPerMinute: config.spending.userRequestsPerMinute,
  });
  const usage = createUsageLedger({ store: spendBackend.store, timeZone: config.spending.timeZone, logger });
  const overridesKeyv = store.namespace('overrides');
  const coordination = openCoordination({
    store,
    logger,
    lockTtlMs: config.lockTtlMs,
    reorderWindowMs: config.lockOrderWindowMs,
  });
  const overrides = createOverrideStore({ store: overridesKeyv, lock: coordination.recordLock });
  const people = createPeopleIndex({ store: store.namespace('people'), lock: coordination.recordLock });
  const history = indexedHistory({ history: storedHistory, index: people, logger });
  const runInConversation: RunInConversation = (key, task) => coordination.conversationLock.run(key, task);
  const places = createPlaceSettingsReader({
    overrides,
    defaults: environmentDefaults({
      limits: config.spending.limits,
      roleLimits: config.spending.roleLimits,
      access: config.access,
      tools: config.tools,
      memory: config.memory,
      retentionDays: config.history.retentionDays,
      scheduleTimeZone: config.scheduling.timeZone,
    }),
  });
  const audit = createAuditLog({
    store: store.namespace('audit'),
    lock: coordination.recordLock,
    logger,
    minimumRetentionDays: config.history.auditRetentionDays,
  });
  const spending = createSpendGuard({
    audit,
    ledger: usage,
    places,
    sightings: spendBackend.sightings,
    requestRate: spendBackend.requestRate,
    catalog: config.models.catalog,
    timeZone: config.spending.timeZone,
    fallbackModel: config.spending.fallbackModel,
    logger,
  });
  const access = createAccessGate({ places, sightings: spendBackend.sightings, audit, logger });
  const journalKeyv = store.namespace('journal');
  const journal = createReplyJournal({
    store: journalKeyv,
    // Only a server store can have several parley processes writing to it at once.
    isStoreShared: store.isShared,
    staleAfterMs: config.orphanAfterMs,
    logger,
  });
  const documentKeyv = store.namespace('documents');
  const documentStore = createDocumentStore({
    store: documentKeyv,
    maxTotalBytes: config.documents.storeMaxBytes,
    lifetimeMs: documentLifetimeMs,
  });
  const documents = createDocumentReader({
    store: documentStore,
    maxBytes: config.documents.maxBytes,
    readLimits: {
      maxUnits: config.documents.maxPages,
      maxCharacters: config.documents.maxCharacters,
      maxRenderedPages: config.documents.maxScannedPages,
      maxUnpackedBytes: config.documents.maxUnpackedBytes,
    },
    workerLimits: {
      timeoutMs: config.documents.parseTimeoutMs,
      maxHeapMb: config.documents.parseMaxMemoryMb,
    },
    logger,
  });
  const scheduler = openScheduler({ config, store, lock: coordination.recordLock, logger });
  const memory = createMemoryBook({ store: store.namespace('memory') });
  const personalTimeZones = createPersonalTimeZones({ store: store.namespace('time-zones') });
  const summaries = createConversationSummaries({ store: store.namespace('summaries') });
  const keptData = createKeptDataRegistry();
  keptData.register(historyKeptData({ historyKeyv, history, index: people, runInConversation }));
  keptData.register(people.keptData);
  keptData.register(
    documentKeptData({
      documents: documentStore,
      // A walk of every conversation's turns: /forget is rare, and a shared file must not go with one person.
      citedHashes: () =>
        documentHashesCited({ history, conversationKeys: () => listConversations(historyKeyv) }),
    }),
  );
  keptData.register(journalKeptData({ journalKeyv }));
  keptData.register(usageKeptData({ usage }));
  keptData.register(memoryKeptData({ memory }));
  keptData.register(timeZoneKeptData({ timeZones: personalTimeZones }));
  if (scheduler) keptData.register(scheduleKeptData({ scheduler }));
  keptData.register(audit.keptData);
  keptData.register(
    summaryKeptData({
      summaries,
      conversationKeys: () => listConversations(historyKeyv),
      rewriting: {
        gateway,
        spending,
        model: config.models.summary,
        maxCharacters: config.history.summaryMaxCharacters,
      },
      runInConversation,
      logger,
    }),
  );
  const retention = createRetentionSweep({
    registry: keptData,
    store,
    places,
    defaultRetentionDays: config.history.retentionDays,
    overrides,
    markerKeyv: store.namespace('retention'),
    lock: coordination.recordLock,
    clock: systemClock,
    intervalMs: retentionSweepIntervalMs,
    logger,
  });
  const personData = createPersonData({
    registry: keptData,
    index: people,
    history,
    runInConversation,
    logger,
  });
  const workspaceData = createWorkspaceData({
    registry: keptData,
    people,
    personData,
    historyKeyv,
    settingsKeyv,
    overridesKeyv,
    memory,
    scheduler,
    logger,
  });
  const links = createLinkReader({ ...config.links, maxLinks: maxLinksPerMessage, logger });
  const searchProvider = config.search
    ? createSearxngProvider({
        baseUrl: config.search.url,
        maxResults: config.search.maxResults,
        timeoutMs: config.search.timeoutMs,
        userAgent: config.links.userAgent,
      })
    : undefined;
  const toolbox = createToolbox([
    ...(searchProvider
      ? createSearchTools({
          provider: searchProvider,
          readPage: createReadPage({ links, documents }),
          deadlineMs: searchToolDeadlineMs,
        })
      : []),
    // Offered only where MEMORY is on (tool-replies.ts decides per place).
    ...createMemoryTools({ book: memory, now: () => new Date(), shared: { places, access, audit } }),
  ]);
  const connectors = config.tools.connectors
    ? createConnectors({
        servers: config.tools.servers,
        store: createConnectionStore({
          store: store.namespace('connectors'),
          encryption: config.tools.connectors.encryption,
        }),
        links: createConnectLinks({
          store: store.namespace('connect-links'),
          encryption: config.tools.connectors.encryption,
        }),
        lock: coordination.recordLock,
        publicUrl: config.tools.connectors.publicUrl,
        questions: createElicitationQuestions({
          store: store.namespace('connect-links'),
          encryption: config.tools.connectors.encryption,
          publicUrl: config.tools.connectors.publicUrl,
        }),
        audit,
        clientVersion: parleyVersion(),
        logger,
      })
    : undefined;
  // /forget me takes a person's connections with the rest of their data (revoked where the server
  // can); an admin's request for a member of one server leaves the member's own accounts alone.
  if (connectors) {
    keptData.register({
      name: 'connectors',
      forget: ({ person, workspace }) =>
        workspace === undefined ? connectors.forgetPerson(person) : Promise.resolve(0),
      export: ({ person }) => connectors.exportPerson(person),
    });
  }
  const mcpServers = startMcpServers({
    servers: config.tools.servers,
    toolbox,
    logger,
    clientVersion: parleyVersion(),
    // Servers' questions mid-call are asked where parley can ask people in private (PUBLIC_URL).
    ...(connectors?.questions ? { answerQuestion: answerQuestionWith(connectors.questions) } : {}),
  });
  const toolReplies = createToolReplies({
    gateway,
    toolbox,
    searchProvider,
    limits: config.tools.callLimits,
    audit,
    ...(connectors ? { personalTools: connectors.toolsFor } : {}),
    logger,
  });
  const engine = createConversationEngine({
    gateway,
    history,
    settings,
    lock: coordination.conversationLock,
    defaults: {
      chatModel: config.models.chat,
      visionModel: config.models.vision,
      systemPrompt: config.systemPrompt,
      replyMaxTokens: config.history.replyMaxTokens,
      maxImageBytes: config.images.maxInputBytes,
    },
    logger,
    spending,
    places,
    journal,
    reading: {
      reader: documents,
      maxContextCharacters: config.documents.maxContextCharacters,
      ...(config.links.mode === 'off' ? {} : { readLinks: links.readLinks }),
    },
    tools: toolReplies,
    memory,
    // The small model that summarises also keeps memory for models that cannot call `remember`.
    memoryExtractionModel: config.models.summary,
    folding: {
      summaries,
      model: config.models.summary,
      maxCharacters: config.history.summaryMaxCharacters,
      // Before history's own cap deletes a turn the summary does not hold yet.
      foldAfterTurns: Math.max(4, config.history.maxTurns - 10),
    },
  });
  return {
    config,
    logger,
    gateway,
    engine,
    history,
    settings,
    usage,
    journal,
    spending,
    access,
    audit,
    overrides,
    places,
    documents,
    links,
    coordination,
    toolbox,
    toolApprovals: createToolApprovals(),
    memory,
    scheduler,
    personalTimeZones,
    keptData,
    retention,
    personData,
    workspaceData,
    mcpServers,
    connectors,
    store,
    probeStore: () => settingsKeyv.get('readiness-probe'),
    async close() {
      retention.stop();
      journal.close();
      await scheduler?.stop();
      await mcpServers.close();
      await connectors?.close();
      await coordination.close();
      await store.close();
    },
  };
}

/** parley's version, as MCP servers are told it in the handshake. */
function parleyVersion(): string {
  const packageJson = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as {
    version?: unknown;
  };
  return typeof packageJson.version === 'string' ? packageJson.version : '0.0.0';
}
