import type { Config } from './config.ts';
import { type ConversationEngine, createConversationEngine } from './conversation/engine.ts';
import { createHistoryStore, type HistoryStore } from './conversation/history-store.ts';
import { createSettingsStore, type SettingsStore } from './conversation/settings-store.ts';
import { createUsageLedger, type UsageLedger } from './conversation/usage-ledger.ts';
import { createGateway, type Gateway } from './gateway/gateway-client.ts';
import type { Logger } from './log.ts';
import { createStore } from './state/create-store.ts';
import { createInProcessLock } from './state/keyed-lock.ts';

/** The platform-neutral core every adapter is given. */
export interface App {
  readonly config: Config;
  readonly logger: Logger;
  readonly gateway: Gateway;
  readonly engine: ConversationEngine;
  readonly history: HistoryStore;
  readonly settings: SettingsStore;
  readonly usage: UsageLedger;
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
    maxRetries: config.gateway.maxRetries,
    catalog: config.models.catalog,
    logger,
    maxImageBytes: config.images.maxInputBytes * 4,
    imageTimeoutMs: config.gateway.imageTimeoutMs,
  });
  const historyKeyv = createStore({ storeUrl: config.storeUrl, namespace: 'history', logger });
  const settingsKeyv = createStore({ storeUrl: config.storeUrl, namespace: 'settings', logger });
  const history = createHistoryStore({ store: historyKeyv, maxTurns: config.history.maxTurns, logger });
  const settings = createSettingsStore({ store: settingsKeyv });
  const usageKeyv = createStore({ storeUrl: config.storeUrl, namespace: 'usage', logger });
  const usage = createUsageLedger({ store: usageKeyv, lock: createInProcessLock(), logger });
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
    usageLedger: usage,
  });
  return {
    config,
    logger,
    gateway,
    engine,
    history,
    settings,
    usage,
    probeStore: () => settingsKeyv.get('readiness-probe'),
    async close() {
      await Promise.allSettled([historyKeyv.disconnect(), settingsKeyv.disconnect(), usageKeyv.disconnect()]);
    },
  };
}
