import type { Keyv } from 'keyv';
import { z } from 'zod';
import type { HistoryStore } from '../conversation/history-store.ts';
import { type ConversationKey, placeOfConversation, type StoredTurn } from '../conversation/turn.ts';
import type { Logger } from '../log.ts';
import type { KeyedLock } from '../state/keyed-lock.ts';
import type { KeptData, Person } from './kept-data.ts';

/**
 * Which conversations each person wrote in. History is kept per conversation, so without this
 * /forget and /export would have to read every conversation of the store.
 */
export interface PeopleIndex {
  /** Records the authors of these turns as people who wrote in the conversation. */
  noteTurns(conversationKey: ConversationKey, turns: readonly StoredTurn[]): Promise<void>;
  /** The conversations the person wrote in, on their platform, in one workspace when named. */
  conversationsOf(person: Person, workspace?: string): Promise<ConversationKey[]>;
  /** Drops what the index knows of the person (in one workspace when named). */
  forget(person: Person, workspace?: string): Promise<void>;
  /** Everyone who wrote in a workspace of a platform (a workspace's data removed at once). */
  peopleIn(platform: string, workspace: string): Promise<Person[]>;
  /** Whether the index was filled from the history kept before it existed (the first sweep does it). */
  isBackfilled(): Promise<boolean>;
  markBackfilled(): Promise<void>;
  /** Drops conversations a person has not written in since before their place's cutoff. */
  readonly keptData: KeptData;
}

const recordSchema = z.object({
  /**
   * Conversation key → when the person last wrote there (ISO time, refreshed at most hourly). A time
   * is not checked here: one unreadable time must not make the whole record read as empty (the next
   * write would then drop every other conversation from the index, and /forget would miss them); the
   * sweep never drops an entry whose time it cannot read. Checking each time also cost a regular
   * expression per entry on every reply (issue 24).
   */
  conversations: z.record(z.string(), z.string()),
});

/** A conversation seen again within this long is not written to the index again. */
const refreshAfterMs = 60 * 60_000;
/**
 * The index may lag a person's newest turn by `refreshAfterMs`; the sweep keeps its entries a day
 * longer than the turns, so it never forgets a conversation that still holds one of them.
 */
const sweepMarginMs = 24 * 60 * 60_000;
const backfilledKey = 'backfilled';

export function createPeopleIndex({
  store,
  lock,
  now = () => Date.now(),
}: {
  /** Its own namespace (`people`). */
  store: Keyv;
  /** Read-modify-write of one person's record at a time (shared across processes on Redis). */
  lock: KeyedLock;
  now?: () => number;
}): PeopleIndex {
  const notedAtMs = new Map<string, number>();
  const keyOf = (person: Person) => `person:${person.platform}:${person.userId}`;
  const read = async (key: string) => {
    const parsed = recordSchema.safeParse(await store.get(key));
    return parsed.success ? parsed.data : { conversations: {} };
  };
  const change = (key: string, edit: (conversations: Record<string, string>) => void) =>
    lock.run(`people-index:${key}`, async () => {
      const record = await read(key);
      const conversations = { ...record.conversations };
      edit(conversations);
      if (Object.keys(conversations).length === 0) await store.delete(key);
      else await store.set(key, { conversations });
    });
  const inWorkspace = (conversationKey: string, workspace: string | undefined) =>
    workspace === undefined || placeOfConversation(conversationKey).workspace === workspace;

  return {
    async noteTurns(conversationKey, turns) {
      const nowMs = now();
      const { platform } = placeOfConversation(conversationKey);
      const authors = new Set(turns.filter((turn) => turn.role === 'user').map((turn) => turn.authorId));
      for (const userId of authors) {
        const key = keyOf({ platform, userId });
        const seenKey = `${key}|${conversationKey}`;
        if (nowMs - (notedAtMs.get(seenKey) ?? Number.NEGATIVE_INFINITY) < refreshAfterMs) continue;
        await change(key, (conversations) => {
          conversations[conversationKey] = new Date(nowMs).toISOString();
        });
        notedAtMs.set(seenKey, nowMs);
        // Bounded: forgetting a sighting only costs one more write.
        if (notedAtMs.size > 50_000) notedAtMs.clear();
      }
    },
    async conversationsOf(person, workspace) {
      const record = await read(keyOf(person));
      return Object.keys(record.conversations).filter((key) => inWorkspace(key, workspace));
    },
    async forget(person, workspace) {
      const key = keyOf(person);
      for (const seenKey of notedAtMs.keys()) if (seenKey.startsWith(`${key}|`)) notedAtMs.delete(seenKey);
      await change(key, (conversations) => {
        for (const conversationKey of Object.keys(conversations)) {
          if (inWorkspace(conversationKey, workspace)) delete conversations[conversationKey];
        }
      });
    },
    async peopleIn(platform, workspace) {
      const people: Person[] = [];
      const prefix = `person:${platform}:`;
      for await (const [key, value] of store.iterator?.(undefined) ?? []) {
        if (typeof key !== 'string' || !key.startsWith(prefix)) continue;
        const parsed = recordSchema.safeParse(value);
        if (!parsed.success) continue;
        const wroteThere = Object.keys(parsed.data.conversations).some((conversationKey) => {
          const place = placeOfConversation(conversationKey);
          return place.platform === platform && place.workspace === workspace;
        });
        if (wroteThere) people.push({ platform, userId: key.slice(prefix.length) });
      }
      return people;
    },
    isBackfilled: async () => (await store.get(backfilledKey)) === true,
    markBackfilled: async () => {
      await store.set(backfilledKey, true);
    },
    keptData: {
      name: 'people-index',
      async sweep(context) {
        let removed = 0;
        const keys: string[] = [];
        for await (const [key] of store.iterator?.(undefined) ?? []) {
          if (typeof key === 'string' && key.startsWith('person:')) keys.push(key);
        }
        for (const key of keys) {
          const record = await read(key);
          const stale: string[] = [];
          for (const [conversationKey, lastAt] of Object.entries(record.conversations)) {
            const cutoffMs = await context.cutoffMsFor(conversationKey);
            if (cutoffMs !== undefined && Date.parse(lastAt) < cutoffMs - sweepMarginMs)
              stale.push(conversationKey);
          }
          if (stale.length === 0) continue;
          removed += stale.length;
          await change(key, (conversations) => {
            for (const conversationKey of stale) delete conversations[conversationKey];
          });
        }
        return removed;
      },
      async export(request) {
        return request.conversationKeys;
      },
    },
  };
}

/**
 * The history store with the index kept as turns are appended. A failed index write is logged and
 * the turn stands: /forget then misses that conversation until the person writes there again.
 */
export function indexedHistory({
  history,
  index,
  logger,
}: {
  history: HistoryStore;
  index: PeopleIndex;
  logger: Logger;
}): HistoryStore {
  return {
    ...history,
    async append(key, turns, options) {
      const appended = await history.append(key, turns, options);
      await index.noteTurns(key, turns).catch((error: unknown) => {
        logger.warn({ err: error, conversationKey: key }, 'the index of who wrote where was not updated');
      });
      return appended;
    },
  };
}
