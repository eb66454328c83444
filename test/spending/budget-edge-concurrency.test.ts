import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/gateway/gateway-error.ts';
import type { ModelCatalog } from '../../src/gateway/model-catalog.ts';
import { coverRequest } from '../../src/gateway/spend-cover.ts';
import { createCapturedLogger } from '../support/capture-logger.ts';
import { createTestSpending } from '../support/test-spending.ts';

/**
 * Fifty requests of one person at once, at the edge of a budget, each a reply of two model calls
 * whose second prompt has grown (a tool round): whatever interleaving the store allows, what is
 * spent never passes the budget. The hold, its top-ups and the settlement go through the real
 * spend guard and ledger on each store whose atomicity the budgets stand on.
 */
const catalog: ModelCatalog = {
  defaults: { contextTokens: 32_000 },
  models: { 'chat-model': { price: { inputPerMillionTokens: 1, outputPerMillionTokens: 2 } } },
};
const budgetNanos = 10_000_000; // 0.01: a first call holds 0.003, a grown second one 0.004 more.
const redisUrl = process.env.REDIS_URL;

const stores = [
  {
    name: 'SQLite',
    storeUrl: () => `sqlite://${join(mkdtempSync(join(tmpdir(), 'parley-budget-edge-')), 'parley.sqlite')}`,
    isSkipped: false,
  },
  { name: 'Redis', storeUrl: () => redisUrl ?? '', isSkipped: redisUrl === undefined },
];

describe.each(stores)(
  'fifty concurrent replies at the edge of a budget on $name',
  ({ storeUrl, isSkipped }) => {
    it.skipIf(isSkipped)('spend no more than the budget', async () => {
      const { logger } = createCapturedLogger();
      const testSpending = createTestSpending({
        catalog,
        logger,
        storeUrl: storeUrl(),
        namespace: `budget-edge-${randomBytes(4).toString('hex')}`,
        defaults: { BUDGET_USER_DAILY: budgetNanos / 1e9 },
      });
      const conversationKey = 'test:workspace:channel';
      const reply = async () => {
        const admission = await testSpending.spending.admit({
          userId: 'ada',
          roleIds: [],
          conversationKey,
          model: 'chat-model',
          work: { kind: 'tokens', promptTokens: 1_000, maxCompletionTokens: 1_000 },
          maxDurationMs: 60_000,
        });
        if (!admission.isAdmitted) return 'refused at once';
        try {
          const first = await coverRequest(admission.hold, {
            model: 'chat-model',
            work: { kind: 'tokens', promptTokens: 1_000, maxCompletionTokens: 1_000 },
          });
          first.record({ usage: { promptTokens: 1_000, completionTokens: 800, totalTokens: 1_800 } });
          const second = await coverRequest(admission.hold, {
            model: 'chat-model',
            work: { kind: 'tokens', promptTokens: 2_000, maxCompletionTokens: 1_000 },
          });
          second.record({ usage: { promptTokens: 2_000, completionTokens: 1_000, totalTokens: 3_000 } });
          return 'answered';
        } catch (error) {
          if (error instanceof GatewayError && error.kind === 'budget') return 'cut by the budget';
          throw error;
        } finally {
          await admission.hold.settle();
        }
      };
      try {
        const outcomes = await Promise.all(Array.from({ length: 50 }, reply));
        const report = await testSpending.ledger.report({ userId: 'ada', conversationKey, at: new Date() });
        expect(report.user.today.costNanos).toBeLessThanOrEqual(budgetNanos);
        // Some got to the gateway (the budget was used, not idle), most were refused before it.
        expect(report.user.today.costNanos).toBeGreaterThan(0);
        expect(outcomes.filter((outcome) => outcome === 'refused at once').length).toBeGreaterThan(40);
      } finally {
        await testSpending.close();
      }
    });
  },
);
