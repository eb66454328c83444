import { createStreamingWriter } from '../delivery/streaming-writer.ts';
import type { Logger } from '../log.ts';
import type { KeyedLock, TurnPlace } from '../state/keyed-lock.ts';
import { storeUnavailableMessage } from '../state/time-bound-store.ts';
import { startWait, traceStep } from '../tracing/turn-spans.ts';
import { admitTurn } from './admit-turn.ts';
import { workAfterReply } from './after-reply.ts';
import { endReply, failedOutcome, refuseTurn, tellStoreUnavailable } from './end-reply.ts';
import { clockOf, type EngineDependencies } from './engine-dependencies.ts';
import { type PreparedTurn, prepareTurn } from './prepare-turn.ts';
import { recordReply } from './record-exchange.ts';
import type { JournalRecord } from './reply-journal.ts';
import type { ReplyOutcome, ReplyRequest } from './reply-types.ts';
import { createReplyWriter } from './reply-writer.ts';
import { streamReply } from './stream-reply.ts';
import type { ConversationKey } from './turn.ts';

export type { EngineDefaults, EngineDependencies } from './engine-dependencies.ts';
export type { ReplyActions, ReplyEnding, ReplyOutcome, ReplyRequest, ReplyStatus } from './reply-types.ts';
export type { WaitingIndicators } from './waiting-indicator.ts';

/** Answers a conversation's turns one at a time, in the order they were sent. */
export interface ConversationEngine {
  /** Answers one turn on `surface`, after every earlier turn of the same conversation is answered. */
  reply(request: ReplyRequest): Promise<ReplyOutcome>;
  /**
   * Forgets the conversation's history, and its settings unless `isKeepingSettings` (queued behind a
   * reply in progress).
   */
  reset(key: ConversationKey, options?: { isKeepingSettings?: boolean }): Promise<void>;
  /**
   * Runs `task` in the conversation's order: after the replies before it, before the ones after it.
   * The task must not call `reply` or `reset` of the same conversation, which would wait for it.
   */
  runInOrder<Result>(key: ConversationKey, task: () => Promise<Result>): Promise<Result>;
  /** Whether a reply or command of this conversation is running or waiting. */
  isBusy(key: ConversationKey): boolean;
  /**
   * Takes the place of a turn sent at `sentAtMicros` in its conversation the moment its event arrives,
   * so the turns sent after it are answered after it, however long its way to `reply` takes. `reply`
   * with that turn takes the place; a turn that will not be answered must `release` it.
   */
  reservePlace(key: ConversationKey, sentAtMicros: number): TurnPlace;
  /**
   * Resolves once no reply or command of this process is running or waiting for its turn: what a
   * graceful shutdown waits for (bounded by its own deadline) before it cuts what is left.
   */
  whenIdle(): Promise<void>;
}

export { historyNotSavedNote } from './end-reply.ts';
/** What a person is told when the store cannot be reached (state/time-bound-store.ts says it). */
export { storeUnavailableMessage };

export function createConversationEngine(dependencies: EngineDependencies): ConversationEngine {
  const { history, settings } = dependencies;
  const lock = createIdleTracking(dependencies.lock);
  return {
    reply: async (request) => {
      let hasStarted = false;
      const lockWait = startWait('conversation lock wait');
      try {
        return await lock.run(
          request.turn.conversationKey,
          () => {
            hasStarted = true;
            lockWait.end();
            return answer(dependencies, request);
          },
          request.turn.sentAtMicros === undefined ? {} : { orderMicros: request.turn.sentAtMicros },
        );
      } catch (error) {
        if (hasStarted) throw error;
        lockWait.end(error);
        return tellLockUnavailable({ dependencies, request, error });
      }
    },
    reset: (key, { isKeepingSettings = false } = {}) =>
      lock.run(key, async () => {
        await history.reset(key);
        await dependencies.folding?.summaries.reset(key);
        if (!isKeepingSettings) await settings.reset(key);
      }),
    runInOrder: (key, task) => lock.run(key, task),
    isBusy: (key) => lock.pendingCount(key) > 0,
    reservePlace: (key, sentAtMicros) => lock.reserve?.(key, sentAtMicros) ?? { release: () => {} },
    whenIdle: () => lock.whenIdle(),
  };
}

/**
 * The conversation's lock could not be taken (a shared store down or frozen): the turn was accepted,
 * so the person hears why rather than nothing. No buttons: their payloads live in the same store.
 */
async function tellLockUnavailable({
  dependencies,
  request,
  error,
}: {
  dependencies: EngineDependencies;
  request: ReplyRequest;
  error: unknown;
}): Promise<ReplyOutcome> {
  const logger = dependencies.logger.child({ conversationKey: request.turn.conversationKey });
  logger.error({ err: error }, 'conversation lock unavailable; the person is told');
  const writer = createStreamingWriter({
    surface: request.surface,
    onError: (writeError) => logger.warn({ err: writeError }, 'could not say so either'),
  });
  const delivered = await writer.fail({ reason: storeUnavailableMessage });
  return failedOutcome({ delivered, model: dependencies.defaults.chatModel });
}

/** The lock, counting this process's tasks so that shutdown can wait for the last one. */
function createIdleTracking(lock: KeyedLock): KeyedLock & { whenIdle(): Promise<void> } {
  let pendingCount = 0;
  const idleWaiters: Array<() => void> = [];
  return {
    async run(key, task, options) {
      pendingCount += 1;
      try {
        return await lock.run(key, task, options);
      } finally {
        pendingCount -= 1;
        if (pendingCount === 0) {
          for (const resolve of idleWaiters.splice(0)) resolve();
        }
      }
    },
    pendingCount: (key) => lock.pendingCount(key),
    ...(lock.reserve ? { reserve: lock.reserve.bind(lock) } : {}),
    whenIdle() {
      if (pendingCount === 0) return Promise.resolve();
      return new Promise<void>((resolve) => idleWaiters.push(resolve));
    },
  };
}

async function answer(dependencies: EngineDependencies, request: ReplyRequest): Promise<ReplyOutcome> {
  const { turn, surface } = request;
  const journalRecord =
    dependencies.journal && surface.address
      ? dependencies.journal.begin({
          address: surface.address,
          conversationKey: turn.conversationKey,
          turn: { authorId: turn.author.id, authorName: turn.author.name, text: turn.text },
        })
      : undefined;
  try {
    return await answerJournaled(dependencies, request, journalRecord);
  } finally {
    await journalRecord?.end();
  }
}

/**
 * The reply, told in its steps: prepare the turn (settings, history, images, documents, memory,
 * context), admit it on the budgets, stream the model's answer, record the exchange, end the reply
 * with its last writes, then the work that may wait until the person has it.
 */
async function answerJournaled(
  dependencies: EngineDependencies,
  request: ReplyRequest,
  journalRecord: JournalRecord | undefined,
): Promise<ReplyOutcome> {
  const { turn } = request;
  const logger = dependencies.logger.child({
    conversationKey: turn.conversationKey,
    authorId: turn.author.id,
  });
  const { writer, showStep } = createReplyWriter({ dependencies, request, journalRecord, logger });
  let prepared: PreparedTurn;
  try {
    prepared = await prepareTurn({ dependencies, request, logger, showStep });
  } catch (error) {
    // The conversation's stores could not be read: nothing reached the gateway, nothing is recorded.
    return tellStoreUnavailable({ dependencies, request, writer, error, logger });
  }
  const admission = await traceStep('spend admit', () => admitTurn({ dependencies, request, prepared }));
  if (!admission.isAdmitted) {
    return refuseTurn({ request, writer, prepared, reason: admission.reason, logger });
  }
  const { prepared: admitted, hold } = admission;
  const startedAt = clockOf(dependencies)();
  const streamed = await streamReply({
    dependencies,
    request,
    prepared: admitted,
    writer,
    hold,
    showStep,
    logger,
  });
  const recording = await recordReply({
    dependencies,
    turn,
    prepared: admitted,
    streamed,
    startedAt,
    logger,
  });
  const outcome = await endReply({
    dependencies,
    request,
    writer,
    prepared: admitted,
    streamed,
    recording,
    logger,
  });
  // Every gateway call of the reply recorded what it used on the hold: one settlement counts them all.
  await hold.settle();
  await workAfterReply({ dependencies, request, prepared: admitted, recording, logger });
  // The context trimmed as the turn was prepared, before a fallback model's window may have changed it.
  logReplyFinished({ logger, outcome, admitted, droppedTurnCount: prepared.fit.droppedTurnCount });
  return outcome;
}

/** One line a reply: how it ended, on which model, what it used and how many edits it took. */
function logReplyFinished({
  logger,
  outcome,
  admitted,
  droppedTurnCount,
}: {
  logger: Logger;
  outcome: ReplyOutcome;
  admitted: PreparedTurn;
  droppedTurnCount: number;
}): void {
  logger.info(
    {
      status: outcome.status,
      model: outcome.model,
      finishReason: outcome.finishReason,
      usage: outcome.usage,
      droppedTurnCount,
      imageCount: admitted.images.references.length,
      noticeCount: admitted.notices.length,
      editCount: outcome.delivered.editCount,
    },
    'reply finished',
  );
}
