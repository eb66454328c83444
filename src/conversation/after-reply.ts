import type { Logger } from '../log.ts';
import { extractNotesAfterReply } from '../memory/held-extraction.ts';
import { traceStep } from '../tracing/turn-spans.ts';
import { clockOf, type EngineDependencies } from './engine-dependencies.ts';
import type { HistoryRead } from './history-store.ts';
import type { PreparedTurn } from './prepare-turn.ts';
import type { RecordedExchange } from './record-exchange.ts';
import type { ReplyRequest } from './reply-types.ts';
import { foldOlderTurns } from './summary-folding.ts';
import type { IncomingTurn } from './turn.ts';
import { unexpiredHistory } from './unexpired-history.ts';

/** Work done once a recorded reply's last write is made, which never fails the reply. */
type AfterReplyStep = (request: {
  dependencies: EngineDependencies;
  turn: IncomingTurn;
  prepared: PreparedTurn;
  logger: Logger;
}) => Promise<void>;

/**
 * What a recorded reply leaves to do once the person has it: fold older turns into the summary, and
 * keep memory for a model without tools. After the last write, so the person never waits for it:
 * the next turn of this conversation does.
 */
export async function workAfterReply({
  dependencies,
  request,
  prepared,
  recording,
  logger,
}: {
  dependencies: EngineDependencies;
  request: ReplyRequest;
  prepared: PreparedTurn;
  recording: RecordedExchange | undefined;
  logger: Logger;
}): Promise<void> {
  if (!recording?.isSaved) return;
  const { turn } = request;
  await traceStep('summary fold', () =>
    foldAfterReply({ dependencies, turn, prepared, history: recording.history, logger }),
  );
  // Regenerate answers a message already read; only a new one can hold new facts.
  if (request.replacesReplyCreatedAt === undefined)
    await extractMemoryAfterReply({ dependencies, turn, prepared, logger });
}

/**
 * Folds older turns into the summary when they fill the context; never fails the reply. The history
 * is the one the recording left (read afresh only when that is unknown).
 */
const foldAfterReply = async ({
  dependencies,
  turn,
  prepared,
  history,
  logger,
}: Parameters<AfterReplyStep>[0] & { history: HistoryRead | undefined }): Promise<void> => {
  const { folding } = dependencies;
  if (!folding) return;
  try {
    await foldOlderTurns({
      folding,
      gateway: dependencies.gateway,
      spending: dependencies.spending,
      conversationKey: turn.conversationKey,
      actor: turn.actor,
      // Expired turns must not be retold in a summary either.
      turns: unexpiredHistory({
        turns:
          history === undefined ? await dependencies.history.load(turn.conversationKey) : [...history.turns],
        summary: undefined,
        retentionDays: prepared.placeSettings?.retentionDays,
        nowMs: clockOf(dependencies)().getTime(),
      }).turns,
      summary: prepared.summary,
      contextTokens: dependencies.gateway.capabilitiesOf(prepared.model).contextTokens,
      replyMaxTokens: dependencies.defaults.replyMaxTokens,
      logger,
    });
  } catch (error) {
    logger.warn({ err: error }, 'could not fold older turns into the summary');
  }
};

/**
 * A model without tools cannot call `remember`: where memory is on, the small model reads what the
 * person said for lasting facts instead (held-extraction.ts); never fails the reply.
 */
const extractMemoryAfterReply: AfterReplyStep = async ({ dependencies, turn, prepared, logger }) => {
  const { memory, memoryExtractionModel } = dependencies;
  if (!memory || memoryExtractionModel === undefined) return;
  // The budget's fallback model may lack the tools the asked-for one had.
  if (prepared.isMemoryKeptByTools && dependencies.gateway.capabilitiesOf(prepared.model).tools) return;
  // The owner kept `remember` from this person here: the extraction does not keep notes instead.
  if (!prepared.isMemoryAllowed) return;
  // Only what the person said about themself: not a message someone else wrote (Continue pressed by another).
  if (turn.author.id !== turn.actor.id) return;
  try {
    await extractNotesAfterReply({
      extraction: { book: memory, model: memoryExtractionModel },
      gateway: dependencies.gateway,
      spending: dependencies.spending,
      mode: prepared.memoryMode,
      actor: turn.actor,
      conversationKey: turn.conversationKey,
      // Only their own words: never a quoted or forwarded message someone else wrote.
      personText: turn.ownText ?? turn.text,
      now: clockOf(dependencies)(),
      logger,
    });
  } catch (error) {
    logger.warn({ err: error }, 'could not extract memory notes from the message');
  }
};
