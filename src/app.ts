import { type AccessGate, createAccessGate } from './access/access-gate.ts';
import { createOverrideStore, type OverrideStore } from './administration/override-store.ts';
import {
  createPlaceSettingsReader,
  environmentDefaults,
  type PlaceSettingsReader,
} from './administration/place-settings.ts';
import type { Config } from './config.ts';
import { type ConversationEngine, createConversationEngine } from './conversation/engine.ts';
import { createHistoryStore, type HistoryStore } from './conversation/history-store.ts';
import { createReplyJournal, type ReplyJournal } from './conversation/reply-journal.ts';
import { createSettingsStore, type SettingsStore } from './conversation/settings-store.ts';
import { createUsageLedger, type UsageLedger } from './conversation/usage-ledger.ts';
import { createGateway, type Gateway } from './gateway/gateway-client.ts';
import type { Logger } from './log.ts';
import { openSpendBackend } from './spending/spend-backend.ts';
import { createSpendGuard, type SpendGuard } from './spending/spend-guard.ts';
import { createStore } from './state/create-store.ts';
import { createInProcessLock } from './state/keyed-lock.ts';
import { parseStoreUrl } from './state/store-url.ts';

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
  /** What /config changed, per server and channel. */
  readonly overrides: OverrideStore;
  /** The settings in force at a place: /config's overrides over the environment. */
  readonly places: PlaceSettingsReader;
  /** Resolves when the store answers a read, rejects when it cannot: the readiness check. */
  probeStore(): Promise<unknown>;
  /** Closes stores and connections; the process can then exit on its own. */
  close(): Promise<void>;
}

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
  const historyKeyv = createStore({
    storeUrl: config.storeUrl,
    namespace: 'history',
    logger,
    operationTimeoutMs: config.storeTimeoutMs,
  });
  const settingsKeyv = createStore({
    storeUrl: config.storeUrl,
    namespace: 'settings',
    logger,
    operationTimeoutMs: config.storeTimeoutMs,
  });
  const history = createHistoryStore({ store: historyKeyv, maxTurns: config.history.maxTurns, logger });
  const settings = createSettingsStore({ store: settingsKeyv });
  const spendBackend = openSpendBackend({
    storeUrl: config.storeUrl,
    logger,
    operationTimeoutMs: config.storeTimeoutMs,
    userRequestsPerMinute: config.spending.userRequestsPerMinute,
  });
  const usage = createUsageLedger({ store: spendBackend.store, timeZone: config.spending.timeZone, logger });
  const overridesKeyv = createStore({
    storeUrl: config.storeUrl,
    namespace: 'overrides',
    logger,
    operationTimeoutMs: config.storeTimeoutMs,
  });
  const overrides = createOverrideStore({ store: overridesKeyv, lock: createInProcessLock() });
  const places = createPlaceSettingsReader({
    overrides,
    defaults: environmentDefaults({
      limits: config.spending.limits,
      roleLimits: config.spending.roleLimits,
      access: config.access,
    }),
  });
  const spending = createSpendGuard({
    ledger: usage,
    places,
    sightings: spendBackend.sightings,
    requestRate: spendBackend.requestRate,
    catalog: config.models.catalog,
    timeZone: config.spending.timeZone,
    fallbackModel: config.spending.fallbackModel,
    logger,
  });
  const access = createAccessGate({ places, sightings: spendBackend.sightings, logger });
  const journalKeyv = createStore({
    storeUrl: config.storeUrl,
    namespace: 'journal',
    logger,
    operationTimeoutMs: config.storeTimeoutMs,
  });
  const journal = createReplyJournal({
    store: journalKeyv,
    // Only a server store can have several parley processes writing to it at once.
    isStoreShared: parseStoreUrl({ storeUrl: config.storeUrl }).kind === 'redis',
    logger,
  });
  const engine = createConversationEngine({
    gateway,
    history,
    settings,
    lock: createInProcessLock(),
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
    overrides,
    places,
    probeStore: () => settingsKeyv.get('readiness-probe'),
    async close() {
      journal.close();
      await Promise.allSettled([
        historyKeyv.disconnect(),
        settingsKeyv.disconnect(),
        spendBackend.close(),
        overridesKeyv.disconnect(),
        journalKeyv.disconnect(),
      ]);
    },
  };
}
