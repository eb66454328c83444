import { randomBytes } from 'node:crypto';
import type { Keyv } from 'keyv';
import { z } from 'zod';
import type { Logger } from '../log.ts';
import { type ConversationKey, type StoredTurn, storedTurnSchema } from './turn.ts';

/** The turns of every conversation, oldest first, in a keyv store that outlives the process. */
export interface HistoryStore {
  load(key: ConversationKey): Promise<StoredTurn[]>;
  /** The turns and the version they are, for an `append` under the same conversation lock. */
  read(key: ConversationKey): Promise<HistoryRead>;
  /**
   * Adds turns at the end, keeping at most the newest `maxTurns`. With `replacingLast`, that many
   * turns are removed from the end first (a regenerated reply takes the place of the old one).
   * With `after`, what a `read` (or append) under the same conversation lock gave: it is the
   * conversation as it stands, so it is not read again (a turn reads its history once, issue 39).
   * Resolves with the conversation as the append left it.
   */
  append(
    key: ConversationKey,
    turns: readonly StoredTurn[],
    options?: { replacingLast?: number; after?: HistoryRead },
  ): Promise<HistoryRead>;
  reset(key: ConversationKey): Promise<void>;
  /**
   * Removes the turns `isRemoved` picks (retention, /forget) and resolves with them; the rest keep
   * their order. The caller holds the conversation's lock. A conversation left empty is removed.
   */
  removeTurns(
    key: ConversationKey,
    isRemoved: (turn: StoredTurn, index: number, turns: readonly StoredTurn[]) => boolean,
  ): Promise<StoredTurn[]>;
}

/**
 * Where a conversation's turns are: keys `<conversation>#<sequence>` from `firstSequence` up to
 * `nextSequence`. `revision` changes with every write and `epoch` with every new start, so a cached
 * copy is known to be current from this one small record.
 */
const headSchema = z.object({
  epoch: z.string(),
  revision: z.number().int(),
  firstSequence: z.number().int().min(0),
  nextSequence: z.number().int().min(0),
});
type Head = z.infer<typeof headSchema>;

/**
 * A conversation's turns as read (or written) at one version. Only good while the conversation's
 * lock is held: every writer of a conversation's history (a reply, /reset, retention, /forget) holds
 * it, so nothing changes it in between.
 */
export interface HistoryRead {
  readonly turns: readonly StoredTurn[];
  /** The head the turns belong to; undefined: the conversation has none yet. */
  readonly head: Head | undefined;
}

interface CachedHistory {
  readonly epoch: string;
  readonly revision: number;
  readonly turns: readonly StoredTurn[];
}

/** Conversations whose turns stay in memory; the least recently used are forgotten first. */
const cachedConversationLimit = 1_000;

const turnKey = (key: ConversationKey, sequence: number) => `${key}#${sequence}`;

/**
 * One store entry per turn, plus a small head record per conversation. Appending writes only the new
 * turns and the head, never the whole history again; loading a conversation this process saw last
 * reads only the head, because the cached turns are current exactly when the head's epoch and
 * revision match — also when several processes share one store.
 */
export function createHistoryStore({
  store,
  maxTurns,
  logger,
}: {
  store: Keyv;
  maxTurns: number;
  logger: Logger;
}): HistoryStore {
  const cache = new Map<ConversationKey, CachedHistory>();

  const remember = (key: ConversationKey, head: Head, turns: readonly StoredTurn[]) => {
    cache.delete(key);
    cache.set(key, { epoch: head.epoch, revision: head.revision, turns });
    if (cache.size > cachedConversationLimit) {
      const oldest = cache.keys().next().value;
      if (oldest !== undefined) cache.delete(oldest);
    }
  };

  const readHead = async (key: ConversationKey): Promise<Head | undefined> => {
    const parsed = headSchema.safeParse(await store.get(key));
    return parsed.success ? parsed.data : undefined;
  };

  const readTurns = async (key: ConversationKey, head: Head): Promise<StoredTurn[]> => {
    const keys = Array.from({ length: head.nextSequence - head.firstSequence }, (_, index) =>
      turnKey(key, head.firstSequence + index),
    );
    const values: unknown[] = keys.length === 0 ? [] : await store.getMany(keys);
    const turns: StoredTurn[] = [];
    let unreadableCount = 0;
    for (const value of values) {
      // A turn written by another version or damaged on disk must not take the conversation down.
      const parsed = storedTurnSchema.safeParse(value);
      if (parsed.success) turns.push(parsed.data);
      else unreadableCount += 1;
    }
    if (unreadableCount > 0) {
      logger.warn(
        { conversationKey: key, unreadableCount },
        'stored turns did not match the schema; skipped',
      );
    }
    return turns;
  };

  const turnsAt = async (key: ConversationKey, head: Head | undefined): Promise<readonly StoredTurn[]> => {
    if (!head) return [];
    const cached = cache.get(key);
    if (cached && cached.epoch === head.epoch && cached.revision === head.revision) {
      remember(key, head, cached.turns);
      return cached.turns;
    }
    const turns = await readTurns(key, head);
    remember(key, head, turns);
    return turns;
  };
  const read = async (key: ConversationKey): Promise<HistoryRead> => {
    const head = await readHead(key);
    return { head, turns: await turnsAt(key, head) };
  };

  return {
    load: async (key) => [...(await read(key)).turns],
    read,
    async append(key, turns, { replacingLast = 0, after } = {}) {
      const { head: stored, turns: current } = after ?? (await read(key));
      const previous = stored ?? {
        epoch: randomBytes(6).toString('base64url'),
        revision: 0,
        firstSequence: 0,
        nextSequence: 0,
      };
      const keptCount = Math.max(0, current.length - replacingLast);
      const startSequence = previous.nextSequence - (current.length - keptCount);
      const allTurns = [...current.slice(0, keptCount), ...turns];
      const nextSequence = startSequence + turns.length;
      const firstSequence = Math.max(previous.firstSequence, nextSequence - maxTurns);
      const head: Head = {
        epoch: previous.epoch,
        revision: previous.revision + 1,
        firstSequence,
        nextSequence,
      };
      const removedKeys = [
        ...range(previous.firstSequence, firstSequence),
        ...range(nextSequence, previous.nextSequence),
      ].map((sequence) => turnKey(key, sequence));
      await store.setMany(
        turns.map((turn, index) => ({ key: turnKey(key, startSequence + index), value: turn })),
      );
      // The head goes last: a reader sees either the old conversation or the whole new one.
      await store.set(key, head);
      if (removedKeys.length > 0) await store.deleteMany(removedKeys);
      const kept = allTurns.slice(-(nextSequence - firstSequence));
      remember(key, head, kept);
      return { head, turns: kept };
    },
    async removeTurns(key, isRemoved) {
      const head = await readHead(key);
      if (!head) return [];
      const turns = await readTurns(key, head);
      const removed = turns.filter((turn, index) => isRemoved(turn, index, turns));
      if (removed.length === 0) return [];
      const kept = turns.filter((turn, index) => !isRemoved(turn, index, turns));
      const oldKeys = range(head.firstSequence, head.nextSequence).map((sequence) => turnKey(key, sequence));
      if (kept.length === 0) {
        cache.delete(key);
        await store.delete(key);
        await store.deleteMany(oldKeys);
        return removed;
      }
      // (With a turn skipped as unreadable, positions and sequences differ: write anew then too.)
      const isOldestOnly =
        turns.length === head.nextSequence - head.firstSequence &&
        turns.slice(0, removed.length).every((turn, index) => isRemoved(turn, index, turns));
      // Dropping the oldest (retention) moves the start; anything else writes the kept turns anew
      // after the old ones, so a reader sees either the old conversation or the whole new one.
      const firstSequence = isOldestOnly ? head.firstSequence + removed.length : head.nextSequence;
      const nextSequence = isOldestOnly ? head.nextSequence : head.nextSequence + kept.length;
      if (!isOldestOnly) {
        await store.setMany(
          kept.map((turn, index) => ({ key: turnKey(key, firstSequence + index), value: turn })),
        );
      }
      const next: Head = { ...head, revision: head.revision + 1, firstSequence, nextSequence };
      await store.set(key, next);
      await store.deleteMany(isOldestOnly ? oldKeys.slice(0, removed.length) : oldKeys);
      remember(key, next, kept);
      return removed;
    },
    async reset(key) {
      const head = await readHead(key);
      cache.delete(key);
      await store.delete(key);
      if (head)
        await store.deleteMany(
          range(head.firstSequence, head.nextSequence).map((sequence) => turnKey(key, sequence)),
        );
    },
  };
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from) }, (_, index) => from + index);
}
