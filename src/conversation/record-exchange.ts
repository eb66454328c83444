import type { Logger } from '../log.ts';
import { clockOf, type EngineDependencies } from './engine-dependencies.ts';
import type { HistoryRead } from './history-store.ts';
import { documentReferencesOf, type PreparedTurn } from './prepare-turn.ts';
import { hasVisibleText, type StreamedReply } from './stream-reply.ts';
import type { IncomingTurn, StoredTurn } from './turn.ts';

/** The person's message and the reply as written to history, and whether the write succeeded. */
export interface RecordedExchange {
  readonly isSaved: boolean;
  readonly userTurn: StoredTurn;
  readonly assistantTurn: StoredTurn;
  /**
   * The conversation as the recording left it (undefined when it was not saved), for the work after
   * the reply, which reads no history of its own; marking the reply as cut replaces it.
   */
  history: HistoryRead | undefined;
}

/**
 * Records the exchange in history. A reply that never produced visible text leaves history as it
 * was, so the person can simply ask again (undefined); a cut reply is kept as the person saw it,
 * marked, so the model knows it broke off. It is recorded before the last platform write, so that
 * write can say when saving failed.
 */
export async function recordReply({
  dependencies,
  turn,
  prepared,
  streamed,
  startedAt,
  logger,
}: {
  dependencies: EngineDependencies;
  turn: IncomingTurn;
  prepared: PreparedTurn;
  streamed: StreamedReply;
  /** When the reply began streaming: the person's turn is recorded at that moment. */
  startedAt: Date;
  logger: Logger;
}): Promise<RecordedExchange | undefined> {
  if (!hasVisibleText(streamed)) return undefined;
  const userTurn: StoredTurn = {
    role: 'user',
    authorId: turn.author.id,
    authorName: turn.author.name,
    text: turn.text,
    images: prepared.images.references,
    ...(prepared.documents.length > 0 ? { documents: documentReferencesOf(prepared.documents) } : {}),
    createdAt: startedAt.toISOString(),
  };
  const assistantTurn = assistantTurnOf({ dependencies, prepared, streamed });
  try {
    const history = await dependencies.history.append(turn.conversationKey, [userTurn, assistantTurn], {
      replacingLast: prepared.replacedTurnCount,
      after: prepared.history,
    });
    return { isSaved: true, userTurn, assistantTurn, history };
  } catch (error) {
    // The person gets the reply with a note that it will not be remembered; the details go here.
    logger.error({ err: error }, 'reply not recorded in history');
    return { isSaved: false, userTurn, assistantTurn, history: undefined };
  }
}

/** The reply was recorded whole, but the platform never showed all of it: mark it as cut. */
export async function markRecordedReplyInterrupted({
  dependencies,
  turn,
  recording,
  logger,
}: {
  dependencies: EngineDependencies;
  turn: IncomingTurn;
  recording: RecordedExchange;
  logger: Logger;
}): Promise<void> {
  try {
    recording.history = await dependencies.history.append(
      turn.conversationKey,
      [recording.userTurn, { ...recording.assistantTurn, isInterrupted: true }],
      { replacingLast: 2, ...(recording.history === undefined ? {} : { after: recording.history }) },
    );
  } catch (error) {
    // What the store holds now is unknown: the work after the reply reads it afresh.
    recording.history = undefined;
    logger.error({ err: error }, 'could not mark an undelivered reply as interrupted in history');
  }
}

/** parley's turn as history keeps it: the text streamed, the model, what it used, and whether it broke off. */
function assistantTurnOf({
  dependencies,
  prepared,
  streamed,
}: {
  dependencies: EngineDependencies;
  prepared: PreparedTurn;
  streamed: StreamedReply;
}): StoredTurn {
  return {
    role: 'assistant',
    authorId: 'parley',
    authorName: 'parley',
    text: streamed.text,
    images: [],
    model: prepared.model,
    ...(streamed.usage ? { usage: streamed.usage } : {}),
    ...(streamed.failure ? { isInterrupted: true } : {}),
    createdAt: clockOf(dependencies)().toISOString(),
  };
}
