import type { Keyv } from 'keyv';
import { z } from 'zod';
import type { Logger } from '../log.ts';
import { type ConversationKey, type StoredTurn, storedTurnSchema } from './turn.ts';

const storedHistorySchema = z.array(storedTurnSchema);

/** The turns of every conversation, newest last, in a keyv store that outlives the process. */
export interface HistoryStore {
  load(key: ConversationKey): Promise<StoredTurn[]>;
  /**
   * Adds turns at the end, keeping at most the newest `maxTurns`. With `replacingLast`, that many
   * turns are removed from the end first (a regenerated reply takes the place of the old one).
   */
  append(
    key: ConversationKey,
    turns: readonly StoredTurn[],
    options?: { replacingLast?: number },
  ): Promise<void>;
  reset(key: ConversationKey): Promise<void>;
}

export function createHistoryStore({
  store,
  maxTurns,
  logger,
}: {
  store: Keyv;
  maxTurns: number;
  logger: Logger;
}): HistoryStore {
  const load = async (key: ConversationKey): Promise<StoredTurn[]> => {
    const value: unknown = await store.get(key);
    if (value === undefined) return [];
    const parsed = storedHistorySchema.safeParse(value);
    if (parsed.success) return parsed.data;
    // A value written by another version or damaged on disk must not take the conversation down:
    // keep the turns that still read, and say in the log what was lost.
    const readable = Array.isArray(value)
      ? value.flatMap((turn) => {
          const result = storedTurnSchema.safeParse(turn);
          return result.success ? [result.data] : [];
        })
      : [];
    logger.warn(
      { conversationKey: key, keptTurns: readable.length, problem: parsed.error.issues[0]?.message },
      'stored history did not match the schema; unreadable turns skipped',
    );
    return readable;
  };
  return {
    load,
    async append(key, turns, { replacingLast = 0 } = {}) {
      const history = await load(key);
      history.splice(history.length - Math.min(replacingLast, history.length));
      history.push(...turns);
      await store.set(key, history.slice(-maxTurns));
    },
    async reset(key) {
      await store.delete(key);
    },
  };
}
