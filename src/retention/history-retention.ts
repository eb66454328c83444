import type { Keyv } from 'keyv';
import type { HistoryStore } from '../conversation/history-store.ts';
import type { ConversationKey, StoredTurn } from '../conversation/turn.ts';
import type { KeptData, PersonRequest } from './kept-data.ts';
import type { PeopleIndex } from './people-index.ts';

/** Runs a task holding a conversation's lock, so no reply writes its history meanwhile. */
export type RunInConversation = <Result>(
  key: ConversationKey,
  task: () => Promise<Result>,
) => Promise<Result>;

/** A turn key is `<conversation>#<sequence>`; everything else in the namespace is a conversation's head. */
const turnKeyPattern = /#\d+$/;

/** The conversations history holds, read from its namespace (a walk of every key). */
export async function listConversations(historyKeyv: Keyv): Promise<ConversationKey[]> {
  const keys: ConversationKey[] = [];
  for await (const [key] of historyKeyv.iterator?.(undefined) ?? []) {
    if (typeof key === 'string' && !turnKeyPattern.test(key)) keys.push(key);
  }
  return keys;
}

/**
 * The person's turns and the replies to them: a user turn they wrote, and every assistant turn
 * that answers it (up to the next person's turn).
 */
export function isTurnOfOrReplyTo(
  userId: string,
): (turn: StoredTurn, index: number, turns: readonly StoredTurn[]) => boolean {
  return (turn, index, turns) => {
    if (turn.role === 'user') return turn.authorId === userId;
    for (let earlier = index - 1; earlier >= 0; earlier -= 1) {
      const previous = turns[earlier];
      if (previous?.role === 'user') return previous.authorId === userId;
    }
    return false;
  };
}

/**
 * Conversation history as kept data: the sweep drops turns older than their place's cutoff (and on
 * its first run fills the people index from the history kept before the index existed); /export
 * gives the person's turns and the replies to them. /forget removes them through `forgetTurns`,
 * first, because what else goes (documents) depends on the turns removed.
 */
export function historyKeptData({
  historyKeyv,
  history,
  index,
  runInConversation,
}: {
  historyKeyv: Keyv;
  history: HistoryStore;
  index: PeopleIndex;
  runInConversation: RunInConversation;
}): KeptData {
  return {
    name: 'history',
    async sweep(context) {
      const isBackfilling = !(await index.isBackfilled());
      let removed = 0;
      for (const key of await listConversations(historyKeyv)) {
        if (isBackfilling) await index.noteTurns(key, await history.load(key));
        const cutoffMs = await context.cutoffMsFor(key);
        if (cutoffMs === undefined) continue;
        const gone = await runInConversation(key, () =>
          history.removeTurns(key, (turn) => Date.parse(turn.createdAt) < cutoffMs),
        );
        removed += gone.length;
      }
      if (isBackfilling) await index.markBackfilled();
      return removed;
    },
    async export(request) {
      const isPersons = isTurnOfOrReplyTo(request.person.userId);
      const conversations = [];
      for (const conversationKey of request.conversationKeys) {
        const turns = await history.load(conversationKey);
        const own = turns.filter((turn, position) => isPersons(turn, position, turns));
        if (own.length > 0) conversations.push({ conversationKey, turns: own });
      }
      return conversations;
    },
  };
}

/** Removes the person's turns and the replies to them from each conversation; resolves with what went. */
export async function forgetTurns({
  history,
  runInConversation,
  request,
}: {
  history: HistoryStore;
  runInConversation: RunInConversation;
  request: PersonRequest;
}): Promise<StoredTurn[]> {
  const forgotten: StoredTurn[] = [];
  for (const key of request.conversationKeys) {
    const gone = await runInConversation(key, () =>
      history.removeTurns(key, isTurnOfOrReplyTo(request.person.userId)),
    );
    forgotten.push(...gone);
  }
  return forgotten;
}

/** The document hashes the turns of every conversation cite now. */
export async function documentHashesCited({
  history,
  conversationKeys,
}: {
  history: HistoryStore;
  conversationKeys: () => Promise<readonly ConversationKey[]>;
}): Promise<Set<string>> {
  const cited = new Set<string>();
  for (const key of await conversationKeys()) {
    for (const turn of await history.load(key)) {
      for (const document of turn.documents ?? []) cited.add(document.documentHash);
    }
  }
  return cited;
}
