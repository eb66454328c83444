import { setTimeout as delay } from 'node:timers/promises';
import { pino } from 'pino';
import { createHistoryStore } from '../src/conversation/history-store.ts';
import type { StoredTurn } from '../src/conversation/turn.ts';
import { createStore } from '../src/state/create-store.ts';

const silent = pino({ level: 'silent' });

/**
 * A conversation's history as the bot's store holds it, read through parley's own history store (so
 * the format is the product's) on a connection of our own, closed again at once. `undefined` when
 * the store cannot be read: that is an observation too.
 */
export async function readHistory({
  storeUrl,
  conversationKey,
}: {
  storeUrl: string;
  conversationKey: string;
}): Promise<StoredTurn[] | undefined> {
  let store: ReturnType<typeof createStore> | undefined;
  try {
    store = createStore({ storeUrl, namespace: 'history', logger: silent, operationTimeoutMs: 3_000 });
    return await createHistoryStore({ store, maxTurns: 1_000, logger: silent }).load(conversationKey);
  } catch {
    return undefined;
  } finally {
    // A frozen Redis never answers QUIT either.
    await Promise.race([store?.disconnect().catch(() => undefined), delay(2_000)]);
  }
}

/** One line about a history, for the observed column. */
export function describeHistory(history: readonly StoredTurn[] | undefined): string {
  if (history === undefined) return 'history unreadable';
  const interrupted = history.filter((turn) => turn.isInterrupted === true).length;
  return `history ${history.length} turns${interrupted > 0 ? ` (${interrupted} marked interrupted)` : ''}`;
}
