import { type ConversationEngine, createConversationEngine } from '../../src/conversation/engine.ts';
import { createHistoryStore, type HistoryStore } from '../../src/conversation/history-store.ts';
import { createSettingsStore, type SettingsStore } from '../../src/conversation/settings-store.ts';
import { createStore } from '../../src/state/create-store.ts';
import { createInProcessLock } from '../../src/state/keyed-lock.ts';
import { createCapturedLogger } from './capture-logger.ts';
import {
  type GatewayUnderTest,
  startGatewayUnderTest,
  testApiKey,
  testCatalog,
} from './gateway-under-test.ts';
import { createTestSpending } from './test-spending.ts';

export interface EngineUnderTest {
  readonly subject: GatewayUnderTest;
  readonly engine: ConversationEngine;
  readonly history: HistoryStore;
  readonly settings: SettingsStore;
  readonly logOutput: () => string;
  close(): Promise<void>;
}

/** The real engine, gateway client and a keyv store, against the fake gateway over loopback. */
export async function startEngineUnderTest(
  options: {
    storeUrl?: string;
    replyMaxTokens?: number;
    /** Puts a test double in front of the real history store, e.g. one whose writes fail. */
    wrapHistory?: (history: HistoryStore) => HistoryStore;
    engineOptions?: Pick<
      Parameters<typeof createConversationEngine>[0],
      'waiting' | 'finalWriteRetryWindowMs'
    >;
  } = {},
): Promise<EngineUnderTest> {
  const subject = await startGatewayUnderTest();
  const { logger, output } = createCapturedLogger([testApiKey]);
  const storeUrl = options.storeUrl ?? 'memory://';
  const historyKeyv = createStore({ storeUrl, namespace: 'history', logger });
  const settingsKeyv = createStore({ storeUrl, namespace: 'settings', logger });
  const realHistory = createHistoryStore({ store: historyKeyv, maxTurns: 50, logger });
  const history = options.wrapHistory ? options.wrapHistory(realHistory) : realHistory;
  const settings = createSettingsStore({ store: settingsKeyv });
  const engine = createConversationEngine({
    gateway: subject.gateway,
    spending: createTestSpending({ catalog: testCatalog, logger }).spending,
    history,
    settings,
    lock: createInProcessLock(),
    defaults: {
      chatModel: 'chat-model',
      visionModel: 'vision-model',
      systemPrompt: 'You are parley.',
      replyMaxTokens: options.replyMaxTokens ?? 500,
      maxImageBytes: 1024 * 1024,
    },
    logger,
    ...options.engineOptions,
  });
  return {
    subject,
    engine,
    history,
    settings,
    logOutput: output,
    async close() {
      await Promise.allSettled([historyKeyv.disconnect(), settingsKeyv.disconnect()]);
      await subject.close();
    },
  };
}
