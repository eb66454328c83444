import type { Logger } from '../log.ts';
import { clockOf, type EngineDependencies } from './engine-dependencies.ts';
import { documentReferencesOf, type PreparedTurn } from './prepare-turn.ts';
import { hasVisibleText, type StreamedReply } from './stream-reply.ts';
import type { IncomingTurn, StoredTurn } from './turn.ts';

/** The person's message and the reply as written to history, and whether the write succeeded. */
export interface RecordedExchange {
  readonly isSaved: boolean;
  readonly userTurn: StoredTurn;
  readonly assistantTurn: StoredTurn;
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
    await dependencies.history.append(turn.conversationKey, [userTurn, assistantTurn], {
      replacingLast: prepared.replacedTurnCount,
    });
    return { isSaved: true, userTurn, assistantTurn };
  } catch (error) {
    // The person gets the reply with a note that it will not be remembered; the details go here.
    logger.error({ err: error }, 'reply not recorded in history');
    return { isSaved: false, userTurn, assistantTurn };
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
    await dependencies.history.append(
      turn.conversationKey,
      [recording.userTurn, { ...recording.assistantTurn, isInterrupted: true }],
      { replacingLast: 2 },
    );
  } catch (error) {
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
