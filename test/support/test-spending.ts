import { createOverrideStore } from '../../src/administration/override-store.ts';
import { createPlaceSettingsReader } from '../../src/administration/place-settings.ts';
import { createUsageLedger, type UsageLedger } from '../../src/conversation/usage-ledger.ts';
import type { ModelCatalog } from '../../src/gateway/model-catalog.ts';
import type { Logger } from '../../src/log.ts';
import { openSpendBackend } from '../../src/spending/spend-backend.ts';
import { createSpendGuard, type SpendGuard } from '../../src/spending/spend-guard.ts';
import type { SpendHold } from '../../src/spending/spend-hold.ts';
import { openStore } from '../../src/state/create-store.ts';
import { createInProcessLock } from '../../src/state/keyed-lock.ts';

export interface TestSpending {
  readonly spending: SpendGuard;
  readonly ledger: UsageLedger;
  close(): Promise<void>;
  /** A hold for work on `model` by a person without budgets: what a gateway test sends with. */
  holdFor(model: string): Promise<SpendHold>;
}

/**
 * The real spend guard on a memory store, as the app wires it, with no budgets unless `defaults`
 * sets some (`{ BUDGET_USER_DAILY: 0.1 }`): the holds a gateway or engine test needs to send at all.
 */
export function createTestSpending({
  catalog,
  logger,
  defaults = {},
  storeUrl = 'memory://',
  namespace,
}: {
  catalog: ModelCatalog;
  logger: Logger;
  defaults?: Record<string, number>;
  /** `sqlite://…` or `redis://…` for a store's own atomicity; default memory. */
  storeUrl?: string;
  /** Keeps a test's counters apart on a shared Redis. */
  namespace?: string;
}): TestSpending {
  const store = openStore({ storeUrl, logger, operationTimeoutMs: 5_000 });
  const backend = openSpendBackend({
    store,
    userRequestsPerMinute: undefined,
    ...(namespace === undefined ? {} : { namespace }),
  });
  const ledger = createUsageLedger({ store: backend.store, timeZone: 'UTC', logger });
  const places = createPlaceSettingsReader({
    overrides: createOverrideStore({ store: store.namespace('overrides'), lock: createInProcessLock() }),
    defaults,
  });
  const spending = createSpendGuard({
    ledger,
    places,
    sightings: backend.sightings,
    requestRate: backend.requestRate,
    catalog,
    timeZone: 'UTC',
    fallbackModel: undefined,
    logger,
  });
  return {
    spending,
    ledger,
    close: async () => {
      await backend.close();
      await store.close();
    },
    async holdFor(model) {
      const admission = await spending.admit({
        userId: 'test-user',
        roleIds: [],
        conversationKey: 'test:workspace:channel',
        model,
        work: { kind: 'tokens', promptTokens: 0, maxCompletionTokens: 0 },
        maxDurationMs: 60_000,
      });
      if (!admission.isAdmitted) throw new Error(`a test hold was refused: ${admission.message}`);
      return admission.hold;
    },
  };
}
