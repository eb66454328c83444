import type { Action } from '../delivery/card.ts';
import type { DeliveredReply, StreamingWriter } from '../delivery/streaming-writer.ts';
import type { FinishReason } from '../gateway/chat-types.ts';
import { GatewayError } from '../gateway/gateway-error.ts';
import type { Logger } from '../log.ts';
import { storeUnavailableMessage } from '../state/time-bound-store.ts';
import type { EngineDependencies } from './engine-dependencies.ts';
import { documentReferencesOf, type PreparedTurn } from './prepare-turn.ts';
import { markRecordedReplyInterrupted, type RecordedExchange } from './record-exchange.ts';
import type { ReplyEnding, ReplyOutcome, ReplyRequest, ReplyStatus } from './reply-types.ts';
import { hasVisibleText, type StreamedReply } from './stream-reply.ts';

/** Said under a reply that reached the person but could not be written to the conversation's history. */
export const historyNotSavedNote =
  '⚠ I could not save this exchange to the conversation history, so I will not remember it.';

/** The ending of a reply that never reached the model: nothing to ask again for. */
const emptyEnding: ReplyEnding = {
  status: 'failed',
  finishReason: undefined,
  recordedAt: undefined,
  imageDataUris: [],
  documents: [],
};

/**
 * Ends a streamed reply with its last platform writes: the exact text with its notes and buttons,
 * or what was shown with why it broke off. A reply recorded whole that the platform never showed
 * whole is marked as cut in history. Gives the reply's outcome.
 */
export async function endReply({
  dependencies,
  request,
  writer,
  prepared,
  streamed,
  recording,
  logger,
}: {
  dependencies: EngineDependencies;
  request: ReplyRequest;
  writer: StreamingWriter;
  prepared: PreparedTurn;
  streamed: StreamedReply;
  recording: RecordedExchange | undefined;
  logger: Logger;
}): Promise<ReplyOutcome> {
  const { turn } = request;
  const failureReason = streamed.failure
    ? await dependencies.spending.describeFailure({
        error: streamed.failure,
        conversationKey: turn.conversationKey,
      })
    : undefined;
  const hasText = hasVisibleText(streamed);
  const notes = recording?.isSaved === false ? [...prepared.notices, historyNotSavedNote] : prepared.notices;
  // The buttons are asked for before the last write: how the reply ended as far as the model goes.
  const modelStatus = replyStatusOf({ failure: streamed.failure, hasText });
  const ending = endingOf({ prepared, status: modelStatus, finishReason: streamed.finishReason, recording });
  const actions = await endingActions({ request, logger, ending });
  const delivery = await deliverEnding({ writer, streamed, failureReason, notes, actions, logger });
  if (delivery.failure !== undefined && streamed.failure === undefined && recording?.isSaved) {
    await markRecordedReplyInterrupted({ dependencies, turn, recording, logger });
  }
  const failure = streamed.failure ?? delivery.failure;
  const status = replyStatusOf({ failure, hasText });
  return {
    delivered: delivery.delivered,
    model: prepared.model,
    usage: streamed.usage,
    error: failure,
    ...endingOf({ prepared, status, finishReason: streamed.finishReason, recording }),
  };
}

/** What the ending buttons need of a reply, and what its outcome tells: how to ask for it again. */
function endingOf({
  prepared,
  status,
  finishReason,
  recording,
}: {
  prepared: PreparedTurn;
  status: ReplyStatus;
  finishReason?: FinishReason | undefined;
  recording?: RecordedExchange | undefined;
}): ReplyEnding {
  return {
    status,
    finishReason,
    recordedAt: recording?.isSaved ? recording.assistantTurn.createdAt : undefined,
    imageDataUris: prepared.images.parts.flatMap((part) =>
      part.type === 'image_url' ? [part.image_url.url] : [],
    ),
    // Documents from links are not kept for Regenerate: the links are in the text, read again.
    documents: documentReferencesOf(prepared.documents.filter((read) => !read.document.sourceUrl)),
  };
}

/** A turn answered with a reason instead of a reply, before anything reached the gateway. */
export async function refuseTurn({
  request,
  writer,
  prepared,
  reason,
  logger,
}: {
  request: ReplyRequest;
  writer: StreamingWriter;
  prepared: PreparedTurn;
  reason: string;
  logger: Logger;
}): Promise<ReplyOutcome> {
  const actions = await endingActions({ request, logger, ending: endingOf({ prepared, status: 'failed' }) });
  const delivered = await writer.fail({ reason, actions });
  return failedOutcome({ delivered, model: prepared.model });
}

/** The conversation's stores could not be read to prepare the turn: the person hears why. */
export async function tellStoreUnavailable({
  dependencies,
  request,
  writer,
  error,
  logger,
}: {
  dependencies: EngineDependencies;
  request: ReplyRequest;
  writer: StreamingWriter;
  error: unknown;
  logger: Logger;
}): Promise<ReplyOutcome> {
  logger.error({ err: error }, 'conversation store unavailable');
  const delivered = await writer.fail({
    reason: storeUnavailableMessage,
    actions: await endingActions({ request, logger, ending: emptyEnding }),
  });
  return failedOutcome({ delivered, model: dependencies.defaults.chatModel });
}

/** A reply that never reached the model: nothing was streamed, used or recorded. */
export function failedOutcome({
  delivered,
  model,
}: {
  delivered: DeliveredReply;
  model: string;
}): ReplyOutcome {
  return { status: 'failed', delivered, model, finishReason: undefined, usage: undefined, error: undefined };
}

/** `cut` when the person saw some of a reply that then failed, `failed` when they saw none. */
function replyStatusOf({
  failure,
  hasText,
}: {
  failure: GatewayError | undefined;
  hasText: boolean;
}): ReplyStatus {
  if (!failure) return 'complete';
  return hasText ? 'cut' : 'failed';
}

/** The buttons of the reply's last write; a reply whose buttons cannot be had ends without them. */
async function endingActions({
  request,
  ending,
  logger,
}: {
  request: ReplyRequest;
  ending: ReplyEnding;
  logger: Logger;
}): Promise<readonly Action[]> {
  if (!request.actions) return [];
  try {
    return await request.actions.atEnd(ending);
  } catch (error) {
    logger.warn({ err: error }, 'could not show the buttons of a reply');
    return [];
  }
}

/** The reply's last platform writes: the exact text and notes, or what is shown plus a cut-off note. */
async function deliverEnding({
  writer,
  streamed,
  failureReason,
  notes,
  actions,
  logger,
}: {
  writer: StreamingWriter;
  streamed: StreamedReply;
  /** What the person is told when the reply failed. */
  failureReason: string | undefined;
  notes: readonly string[];
  actions: readonly Action[];
  logger: Logger;
}): Promise<{ delivered: DeliveredReply; failure: GatewayError | undefined }> {
  try {
    const delivered = streamed.failure
      ? await writer.fail({ reason: failureReason ?? streamed.failure.userMessage, actions })
      : await writer.finish({ finishReason: streamed.finishReason ?? 'other', notes, actions });
    return { delivered, failure: undefined };
  } catch (error) {
    // The platform refused the final writes even after retries and a new message: the person may
    // not see the whole reply, though the model wrote it.
    logger.error({ err: error }, 'final platform call failed; the reply may be incomplete on screen');
    return {
      delivered: { text: streamed.text, messages: [], editCount: 0, isComplete: false },
      failure: new GatewayError({
        kind: 'stream-interrupted',
        message: 'final platform call failed',
        cause: error,
      }),
    };
  }
}
