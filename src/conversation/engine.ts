import type { Action } from '../delivery/card.ts';
import {
  createStreamingWriter,
  type DeliveredReply,
  type StreamingWriter,
} from '../delivery/streaming-writer.ts';
import type { Surface } from '../delivery/surface.ts';
import { createToolProgress, type ToolProgress } from '../delivery/tool-progress.ts';
import type {
  ChatStreamRequest,
  FinishReason,
  TokenUsage,
  ToolCall,
  ToolStep,
} from '../gateway/chat-types.ts';
import { GatewayError, toGatewayError } from '../gateway/gateway-error.ts';
import type { Logger } from '../log.ts';
import { extractNotesAfterReply } from '../memory/held-extraction.ts';
import { measureReply } from '../operations/measure-reply.ts';
import type { Admission } from '../spending/spend-guard.ts';
import type { SpendHold } from '../spending/spend-hold.ts';
import type { KeyedLock, TurnPlace } from '../state/keyed-lock.ts';
import { storeUnavailableMessage } from '../state/time-bound-store.ts';
import type { AskApproval } from '../tools/tool-loop.ts';
import type { EngineDependencies } from './engine-dependencies.ts';
import { documentReferencesOf, type PreparedTurn, prepareTurn } from './prepare-turn.ts';
import type { JournalRecord } from './reply-journal.ts';
import type { ReplyEnding, ReplyOutcome, ReplyRequest, ReplyStatus } from './reply-types.ts';
import { foldOlderTurns } from './summary-folding.ts';
import type { ConversationKey, IncomingTurn, StoredTurn } from './turn.ts';
import { unexpiredHistory } from './unexpired-history.ts';
import { defaultWaitingIndicators, showWhileWaiting } from './waiting-indicator.ts';

export type { EngineDefaults, EngineDependencies } from './engine-dependencies.ts';
export type { ReplyActions, ReplyEnding, ReplyOutcome, ReplyRequest, ReplyStatus } from './reply-types.ts';
export type { WaitingIndicators } from './waiting-indicator.ts';

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

/** Said under a reply that reached the person but could not be written to the conversation's history. */
export const historyNotSavedNote =
  '⚠ I could not save this exchange to the conversation history, so I will not remember it.';

/** Said when the store that holds the conversation does not answer. */
/** What a person is told when the store cannot be reached (state/time-bound-store.ts says it). */
export { storeUnavailableMessage };

/** The longest a reply's budget hold lasts if the reply is never settled (a process that died). */
const replyHoldMs = 15 * 60_000;

export function createConversationEngine(dependencies: EngineDependencies): ConversationEngine {
  const { history, settings } = dependencies;
  const lock = createIdleTracking(dependencies.lock);
  return {
    reply: async (request) => {
      let hasStarted = false;
      try {
        return await lock.run(
          request.turn.conversationKey,
          () => {
            hasStarted = true;
            return answer(dependencies, request);
          },
          request.turn.sentAtMicros === undefined ? {} : { orderMicros: request.turn.sentAtMicros },
        );
      } catch (error) {
        if (hasStarted) throw error;
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

async function answerJournaled(
  dependencies: EngineDependencies,
  request: ReplyRequest,
  journalRecord: JournalRecord | undefined,
): Promise<ReplyOutcome> {
  const { turn, surface, signal } = request;
  const logger = dependencies.logger.child({
    conversationKey: turn.conversationKey,
    authorId: turn.author.id,
  });
  const writer = measureReply({
    platform: turn.conversationKey.split(':')[0] ?? 'unknown',
    surface,
    createWriter: (measuredSurface) =>
      createStreamingWriter({
        surface: measuredSurface,
        onError: (error) => logger.warn({ err: error }, 'platform call failed while streaming'),
        ...(journalRecord ? { onProgress: (progress) => journalRecord.update(progress) } : {}),
        ...(request.actions ? { actionsWhileStreaming: request.actions.whileStreaming } : {}),
        ...(dependencies.finalWriteRetryWindowMs === undefined
          ? {}
          : { finalWriteRetryWindowMs: dependencies.finalWriteRetryWindowMs }),
      }),
  });
  // The reply's steps, from reading its documents to the model's tool calls, shown as one list.
  const progress = createToolProgress();
  const showStep = (step: ToolStep) => showReplyStep({ surface, writer, progress, step });
  let prepared: PreparedTurn;
  try {
    prepared = await prepareTurn({ dependencies, request, logger, showStep });
  } catch (error) {
    logger.error({ err: error }, 'conversation store unavailable');
    const delivered = await writer.fail({
      reason: storeUnavailableMessage,
      actions: await endingActions({ request, logger, ending: emptyEnding }),
    });
    return failedOutcome({ delivered, model: dependencies.defaults.chatModel });
  }
  const { model, fit, notices } = prepared;
  const refusalActions = () =>
    endingActions({ request, logger, ending: endingOf({ prepared, status: 'failed' }) });
  if (fit.isNewTurnTooLarge) {
    return refuseTurn({
      writer,
      model,
      reason: 'your message is too long for this model. Please shorten it.',
      actions: await refusalActions(),
    });
  }
  const admission = await admitReply({ dependencies, request, prepared });
  if (!admission.isAdmitted) {
    return refuseTurn({ writer, model, reason: admission.message, actions: await refusalActions() });
  }
  if (admission.model !== model) {
    prepared = { ...prepared, model: admission.model, fit: prepared.refit(admission.model) };
  }
  prepared.notices.push(...admission.notes);
  const startedAt = (dependencies.now ?? (() => new Date()))();
  const streamed = await streamReply({
    dependencies,
    prepared,
    turn,
    writer,
    signal,
    logger,
    hold: admission.hold,
    askApproval: request.askApproval,
    approvedCall: request.approvedCall,
    showStep,
  });
  const failureReason = streamed.failure
    ? await dependencies.spending.describeFailure({
        error: streamed.failure,
        conversationKey: turn.conversationKey,
      })
    : undefined;
  // A reply that never produced visible text leaves history as it was, so the person can simply ask
  // again; a cut reply is kept as the person saw it, marked, so the model knows it broke off. It is
  // recorded before the last platform write, so that write can say when saving failed.
  const hasText = /\S/.test(streamed.text);
  const recording = hasText
    ? await recordExchange({ dependencies, turn, prepared, streamed, startedAt, logger })
    : undefined;
  const notes = recording?.isSaved === false ? [...notices, historyNotSavedNote] : notices;
  const actions = await endingActions({
    request,
    logger,
    ending: endingOf({
      prepared,
      status: streamed.failure ? (hasText ? 'cut' : 'failed') : 'complete',
      finishReason: streamed.finishReason,
      recording,
    }),
  });
  const delivery = await deliverEnding({ writer, streamed, failureReason, notes, actions, logger });
  if (delivery.failure !== undefined && streamed.failure === undefined && recording?.isSaved) {
    await markRecordedReplyInterrupted({ dependencies, turn, recording, logger });
  }
  const failure = streamed.failure ?? delivery.failure;
  const delivered = delivery.delivered;
  const status: ReplyStatus = failure ? (hasText ? 'cut' : 'failed') : 'complete';
  // Every gateway call of the reply recorded what it used on the hold: one settlement counts them all.
  await admission.hold.settle();
  // After the last write, so the person never waits for it: the next turn of this conversation does.
  if (recording?.isSaved) {
    await foldAfterReply({ dependencies, turn, prepared, logger });
    // Regenerate answers a message already read; only a new one can hold new facts.
    if (request.replacesReplyCreatedAt === undefined)
      await extractMemoryAfterReply({ dependencies, turn, prepared, logger });
  }
  logger.info(
    {
      status,
      model: prepared.model,
      finishReason: streamed.finishReason,
      usage: streamed.usage,
      droppedTurnCount: fit.droppedTurnCount,
      imageCount: prepared.images.references.length,
      noticeCount: notices.length,
      editCount: delivered.editCount,
    },
    'reply finished',
  );
  return {
    delivered,
    model: prepared.model,
    usage: streamed.usage,
    error: failure,
    ...endingOf({ prepared, status, finishReason: streamed.finishReason, recording }),
  };
}

/** Work done once a recorded reply's last write is made, which never fails the reply. */
type AfterReplyStep = (request: {
  dependencies: EngineDependencies;
  turn: IncomingTurn;
  prepared: PreparedTurn;
  logger: Logger;
}) => Promise<void>;

/** Folds older turns into the summary when they fill the context; never fails the reply. */
const foldAfterReply: AfterReplyStep = async ({ dependencies, turn, prepared, logger }) => {
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
        turns: await dependencies.history.load(turn.conversationKey),
        summary: undefined,
        retentionDays: prepared.placeSettings?.retentionDays,
        nowMs: (dependencies.now ?? (() => new Date()))().getTime(),
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
      now: (dependencies.now ?? (() => new Date()))(),
      logger,
    });
  } catch (error) {
    logger.warn({ err: error }, 'could not extract memory notes from the message');
  }
};

const emptyEnding: ReplyEnding = {
  status: 'failed',
  finishReason: undefined,
  recordedAt: undefined,
  imageDataUris: [],
  documents: [],
};

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

/** A reply that never reached the model: nothing was streamed, used or recorded. */
function failedOutcome({ delivered, model }: { delivered: DeliveredReply; model: string }): ReplyOutcome {
  return { status: 'failed', delivered, model, finishReason: undefined, usage: undefined, error: undefined };
}

/** A turn answered with a reason instead of a reply, before anything reached the gateway. */
async function refuseTurn({
  writer,
  model,
  reason,
  actions,
}: {
  writer: StreamingWriter;
  model: string;
  reason: string;
  actions: readonly Action[];
}): Promise<ReplyOutcome> {
  const delivered = await writer.fail({ reason, actions });
  return failedOutcome({ delivered, model });
}

interface StreamedReply {
  /** Exactly the model text streamed to the writer. */
  readonly text: string;
  readonly finishReason: FinishReason | undefined;
  readonly usage: TokenUsage | undefined;
  readonly failure: GatewayError | undefined;
}

/** Streams the gateway's reply into the writer; the writer is left open for its ending. */
async function streamReply({
  dependencies,
  prepared,
  turn,
  writer,
  signal,
  logger,
  hold,
  askApproval,
  approvedCall,
  showStep,
}: {
  dependencies: EngineDependencies;
  prepared: PreparedTurn;
  turn: IncomingTurn;
  writer: StreamingWriter;
  signal: AbortSignal | undefined;
  hold: SpendHold;
  askApproval: AskApproval | undefined;
  approvedCall: ToolCall | undefined;
  logger: Logger;
  showStep: (step: ToolStep) => void;
}): Promise<StreamedReply> {
  let finishReason: FinishReason | undefined;
  let usage: TokenUsage | undefined;
  let text = '';
  let failure: GatewayError | undefined;
  const waiting = showWhileWaiting({
    writer,
    surface: prepared.surface,
    indicators: dependencies.waiting ?? defaultWaitingIndicators,
  });
  // Text reaches the writer as it arrives; `text` is always exactly what was appended, so a reply
  // cut off midway keeps what the person saw.
  const appendText = (delta: string) => {
    if (text === '') waiting.stop();
    text += delta;
    writer.append(delta);
  };
  try {
    const chat: ChatStreamRequest = {
      model: prepared.model,
      messages: prepared.fit.messages,
      maxTokens: dependencies.defaults.replyMaxTokens,
      hold,
      ...(signal ? { signal } : {}),
      // The gateway's stream hands its text straight to the writer rather than as an event each
      // (no async-iterator hop per piece); where tools wrap the stream, text comes as events below.
      onTextDelta: appendText,
    };
    // With search, the reply's further calls (tool rounds, the search decision) go out on the same
    // hold: each is covered as it is sent, with the tool results that grew its prompt.
    // Without the place's settings no tool is on anywhere: the reply is a plain stream.
    const events =
      dependencies.tools && prepared.placeSettings
        ? dependencies.tools.stream({
            chat,
            actor: turn.actor,
            settings: prepared.placeSettings,
            conversationKey: turn.conversationKey,
            isSearchForced: turn.isSearchForced === true,
            askApproval,
            approvedCall,
          })
        : dependencies.gateway.chatStream(chat);
    for await (const event of events) {
      if (event.type === 'text-delta') appendText(event.text);
      else if (event.type === 'notice') prepared.notices.push(event.message);
      else if (event.type === 'tool-step') {
        // The steps say what happens now: no typing renewals, no "still waiting" line over them.
        waiting.stop();
        showStep(event.step);
      } else if (event.type === 'response-started') waiting.responseStarted();
      else if (event.type === 'status') {
        if (text === '') waiting.showStatus(event.text);
        prepared.surface.showStatus?.(event.text).catch(() => undefined);
      } else if (event.type === 'finish') {
        finishReason = event.finishReason;
        usage = event.usage;
      }
    }
  } catch (error) {
    failure = toGatewayError(error);
    logger[failure.kind === 'cancelled' ? 'info' : 'warn'](
      { err: failure, kind: failure.kind, model: prepared.model },
      'reply did not complete',
    );
  } finally {
    waiting.stop();
  }
  return { text, finishReason, usage, failure };
}

/**
 * A step of the reply (a tool call, or parley reading a document) the way the surface shows it
 * (Slack's task cards, the terminal's dimmed lines), or as lines above the reply's text where it
 * does not: every step so far, so a step the surface could not show (a native stream refused
 * midway) still appears. A step that starts or waits is the platform's status too (Slack's thread
 * status), where the surface has one.
 */
function showReplyStep({
  surface,
  writer,
  progress,
  step,
}: {
  surface: Surface;
  writer: StreamingWriter;
  progress: ToolProgress;
  step: ToolStep;
}): void {
  progress.update(step);
  if (step.status === 'running' || step.status === 'waiting') {
    surface.showStatus?.(step.title).catch(() => undefined);
  }
  const showLines = () => writer.showProgress(progress.render(surface.toolStepLines ?? 'each'));
  if (surface.showToolStep === undefined) {
    showLines();
    return;
  }
  surface.showToolStep(step).then((shown) => {
    if (shown === 'not-shown') showLines();
  }, showLines);
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

interface RecordedExchange {
  readonly isSaved: boolean;
  readonly userTurn: StoredTurn;
  readonly assistantTurn: StoredTurn;
}

async function recordExchange({
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
  startedAt: Date;
  logger: Logger;
}): Promise<RecordedExchange> {
  const now = dependencies.now ?? (() => new Date());
  const userTurn: StoredTurn = {
    role: 'user',
    authorId: turn.author.id,
    authorName: turn.author.name,
    text: turn.text,
    images: prepared.images.references,
    ...(prepared.documents.length > 0 ? { documents: documentReferencesOf(prepared.documents) } : {}),
    createdAt: startedAt.toISOString(),
  };
  const assistantTurn: StoredTurn = {
    role: 'assistant',
    authorId: 'parley',
    authorName: 'parley',
    text: streamed.text,
    images: [],
    model: prepared.model,
    ...(streamed.usage ? { usage: streamed.usage } : {}),
    ...(streamed.failure ? { isInterrupted: true } : {}),
    createdAt: now().toISOString(),
  };
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
async function markRecordedReplyInterrupted({
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

/**
 * Admits the reply: its first call's worst case (the prompt as estimated plus `max_tokens`) is held
 * on the budgets; further calls (tool rounds) top the hold up as they are sent.
 */
async function admitReply({
  dependencies,
  request,
  prepared,
}: {
  dependencies: EngineDependencies;
  request: ReplyRequest;
  prepared: PreparedTurn;
}): Promise<Admission> {
  const { turn } = request;
  return dependencies.spending.admit({
    userId: turn.actor.id,
    roleIds: turn.actor.roleIds,
    conversationKey: turn.conversationKey,
    model: prepared.model,
    work: {
      kind: 'tokens',
      promptTokens: prepared.fit.estimatedPromptTokens,
      maxCompletionTokens: dependencies.defaults.replyMaxTokens,
    },
    mayFallBack: true,
    needsVision: prepared.images.parts.length > 0,
    maxDurationMs: replyHoldMs,
  });
}
