import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createConversationEngine } from '../../src/conversation/engine.ts';
import { createHistoryStore } from '../../src/conversation/history-store.ts';
import { createSettingsStore } from '../../src/conversation/settings-store.ts';
import type { Gateway } from '../../src/gateway/gateway-client.ts';
import { createStore } from '../../src/state/create-store.ts';
import type { KeyedLock } from '../../src/state/keyed-lock.ts';
import { StoreTimeoutError } from '../../src/state/time-bound-store.ts';
import { testCatalog } from '../support/gateway-under-test.ts';
import { createRecordingSurface } from '../support/recording-surface.ts';
import { createTestSpending } from '../support/test-spending.ts';

const logger = pino({ level: 'silent' });

/** A shared lock whose store never answers: every run fails before its task starts. */
const frozenLock: KeyedLock = {
  run: () => Promise.reject(new StoreTimeoutError({ operation: 'eval', timeoutMs: 2_000 })),
  pendingCount: () => 0,
};

describe('a turn whose conversation lock cannot be taken', () => {
  it('tells the person the memory is unreachable instead of dropping the turn', async () => {
    const gatewayCalls: string[] = [];
    const gateway = new Proxy({} as Gateway, {
      get: (_, name) => () => {
        gatewayCalls.push(String(name));
        throw new Error('the gateway must not be called');
      },
    });
    const engine = createConversationEngine({
      gateway,
      history: createHistoryStore({
        store: createStore({ storeUrl: 'memory://', namespace: 'history', logger }),
        maxTurns: 10,
        logger,
      }),
      settings: createSettingsStore({
        store: createStore({ storeUrl: 'memory://', namespace: 's', logger }),
      }),
      lock: frozenLock,
      spending: createTestSpending({ catalog: testCatalog, logger }).spending,
      defaults: {
        chatModel: 'chat-model',
        visionModel: 'vision-model',
        systemPrompt: 'You are parley.',
        replyMaxTokens: 100,
        maxImageBytes: 1024,
      },
      logger,
    });
    const surface = createRecordingSurface();
    const outcome = await engine.reply({
      turn: {
        conversationKey: 'discord:g:c',
        author: { id: 'u1', name: 'Ada' },
        actor: { id: 'u1', name: 'Ada', roleIds: [], isAdmin: false, context: 'server' },
        text: 'hello',
        images: [],
        isAddressedToBot: true,
        notices: [],
      },
      surface,
    });
    expect(outcome.status).toBe('failed');
    expect([...surface.messageTexts.values()].join('\n')).toMatch(/cannot reach my memory/);
    expect(gatewayCalls).toEqual([]);
  });
});
