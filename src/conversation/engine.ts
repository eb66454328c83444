import {
  createStreamingWriter,
  type DeliveredReply,
  type StreamingWriter,
} from '../delivery/streaming-writer.ts';
import type { Surface } from '../delivery/surface.ts';
import type { ChatMessage, FinishReason, TokenUsage } from '../gateway/chat-types.ts';
import type { Gateway } from '../gateway/gateway-client.ts';
import { GatewayError, toGatewayError } from '../gateway/gateway-error.ts';
import type { Logger } from '../log.ts';
import { measureReply } from '../operations/measure-reply.ts';
import type { KeyedLock } from '../state/keyed-lock.ts';
import { type ContextFit, fitToContext } from './context-budget.ts';
import type { HistoryStore } from './history-store.ts';
import { type LoadedImages, loadImages } from './image-intake.ts';
import type { SettingsStore } from './settings-store.ts';
import type { ConversationKey, IncomingTurn, StoredTurn } from './turn.ts';
import type { UsageLedger } from './usage-ledger.ts';

/** How a reply ended: `complete`, `cut` (some text shown, then an error or Stop), or `failed` (no text). */
export type ReplyStatus = 'complete' | 'cut' | 'failed';

export interface ReplyOutcome {
  readonly status: ReplyStatus;
  readonly delivered: DeliveredReply;
  readonly model: string;
  readonly finishReason: FinishReason | undefined;
  readonly usage: TokenUsage | undefined;
  /** The gateway error behind a `cut` or `failed` reply. */
  readonly error: GatewayError | undefined;
  /** `createdAt` of the assistant turn recorded in history, when one was. */
  readonly recordedAt?: string | undefined;
  /** The turn's images as the model got them (`data:` URIs), so Regenerate can send them again. */
  readonly imageDataUris?: readonly string[];
}

export interface ReplyRequest {
  readonly turn: IncomingTurn;
  readonly surface: Surface;
  /** Aborting stops the reply (the Stop action); the text so far stays and is recorded. */
  readonly signal?: AbortSignal;
  /**
   * Regenerate: the `createdAt` of the assistant turn this reply replaces. When that turn is still
   * the last one, it and the user turn before it leave the context and are replaced in history;
   * otherwise the new reply is simply added at the end.
   */
  readonly replacesReplyCreatedAt?: string;
}

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
}

export interface EngineDefaults {
  readonly chatModel: string;
  readonly visionModel: string;
  readonly systemPrompt: string;
  readonly replyMaxTokens: number;
  readonly maxImageBytes: number;
}

export interface EngineDependencies {
  readonly gateway: Gateway;
  readonly history: HistoryStore;
  readonly settings: SettingsStore;
  readonly lock: KeyedLock;
  readonly defaults: EngineDefaults;
  readonly logger: Logger;
  /** Where spending is counted for /usage; optional so the engine works without it in tests. */
  readonly usageLedger?: UsageLedger;
  readonly now?: () => Date;
}

const storeUnavailableMessage =
  'I cannot reach my memory of this conversation right now. Please try again in a moment.';

/** A turn made ready for the gateway: which model, which messages, what the person should be told. */
interface PreparedTurn {
  readonly model: string;
  readonly fit: ContextFit;
  readonly images: LoadedImages;
  readonly notices: string[];
  /** How many turns at the end of history this reply replaces (regenerate): 0 or 2. */
  readonly replacedTurnCount: number;
}

export function createConversationEngine(dependencies: EngineDependencies): ConversationEngine {
  const { history, settings, lock } = dependencies;
  return {
    reply: (request) => lock.run(request.turn.conversationKey, () => answer(dependencies, request)),
    reset: (key, { isKeepingSettings = false } = {}) =>
      lock.run(key, async () => {
        await history.reset(key);
        if (!isKeepingSettings) await settings.reset(key);
      }),
    runInOrder: (key, task) => lock.run(key, task),
    isBusy: (key) => lock.pendingCount(key) > 0,
  };
}

async function answer(dependencies: EngineDependencies, request: ReplyRequest): Promise<ReplyOutcome> {
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
      }),
  });
  let prepared: PreparedTurn;
  try {
    prepared = await prepareTurn(dependencies, request, logger);
  } catch (error) {
    logger.error({ err: error }, 'conversation store unavailable');
    const delivered = await writer.fail({ reason: storeUnavailableMessage });
    return {
      status: 'failed',
      delivered,
      model: dependencies.defaults.chatModel,
      finishReason: undefined,
      usage: undefined,
      error: undefined,
    };
  }
  const { model, fit, notices } = prepared;
  if (fit.isNewTurnTooLarge) {
    const delivered = await writer.fail({
      reason: 'your message is too long for this model. Please shorten it.',
    });
    return {
      status: 'failed',
      delivered,
      model,
      finishReason: undefined,
      usage: undefined,
      error: undefined,
    };
  }

  const startedAt = (dependencies.now ?? (() => new Date()))();
  const streamed = await streamReply({ dependencies, prepared, writer, signal, logger });
  const { delivered, failure } = streamed;
  const status: ReplyStatus = failure ? (delivered.text.length > 0 ? 'cut' : 'failed') : 'complete';
  // A reply that never produced text leaves history as it was, so the person can simply ask again;
  // a cut reply is kept as the person saw it, marked, so the model knows it broke off.
  const recordedAt =
    delivered.text.length > 0
      ? await recordExchange({ dependencies, turn, prepared, streamed, startedAt, logger })
      : undefined;
  await recordUsage({ dependencies, turn, streamed });
  logger.info(
    {
      status,
      model,
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
    status,
    delivered,
    model,
    finishReason: streamed.finishReason,
    usage: streamed.usage,
    error: failure,
    recordedAt,
    imageDataUris: prepared.images.parts.flatMap((part) =>
      part.type === 'image_url' ? [part.image_url.url] : [],
    ),
  };
}

async function prepareTurn(
  dependencies: EngineDependencies,
  request: ReplyRequest,
  logger: Logger,
): Promise<PreparedTurn> {
  const { turn } = request;
  const { gateway, defaults } = dependencies;
  const [conversationSettings, allStoredTurns, images] = await Promise.all([
    dependencies.settings.get(turn.conversationKey),
    dependencies.history.load(turn.conversationKey),
    loadImages({ attachments: turn.images, maxBytes: defaults.maxImageBytes, logger }),
  ]);
  const lastTurn = allStoredTurns.at(-1);
  const replacedTurnCount =
    request.replacesReplyCreatedAt !== undefined &&
    lastTurn?.role === 'assistant' &&
    lastTurn.createdAt === request.replacesReplyCreatedAt &&
    allStoredTurns.at(-2)?.role === 'user'
      ? 2
      : 0;
  const storedTurns = allStoredTurns.slice(0, allStoredTurns.length - replacedTurnCount);
  let model = conversationSettings.model ?? defaults.chatModel;
  if (images.parts.length > 0 && !gateway.capabilitiesOf(model).vision) model = defaults.visionModel;

  const text = `${turn.author.name}: ${turn.text}`;
  const newTurn: ChatMessage = {
    role: 'user',
    content: images.parts.length === 0 ? text : [{ type: 'text', text }, ...images.parts],
  };
  const fit = fitToContext({
    systemPrompt: conversationSettings.systemPrompt ?? defaults.systemPrompt,
    history: storedTurns,
    newTurn,
    contextTokens: gateway.capabilitiesOf(model).contextTokens,
    replyMaxTokens: defaults.replyMaxTokens,
  });
  const notices = [...(turn.notices ?? []), ...images.notices];
  if (fit.droppedTurnCount > 0) {
    notices.push(
      `The ${fit.droppedTurnCount} oldest messages of this conversation no longer fit in my context, so I left them out.`,
    );
  }
  return { model, fit, images, notices, replacedTurnCount };
}

interface StreamedReply {
  readonly delivered: DeliveredReply;
  readonly finishReason: FinishReason | undefined;
  readonly usage: TokenUsage | undefined;
  readonly failure: GatewayError | undefined;
}

async function streamReply({
  dependencies,
  prepared,
  writer,
  signal,
  logger,
}: {
  dependencies: EngineDependencies;
  prepared: PreparedTurn;
  writer: StreamingWriter;
  signal: AbortSignal | undefined;
  logger: Logger;
}): Promise<StreamedReply> {
  let finishReason: FinishReason | undefined;
  let usage: TokenUsage | undefined;
  let appendedText = '';
  let failure: GatewayError | undefined;
  try {
    const events = dependencies.gateway.chatStream({
      model: prepared.model,
      messages: prepared.fit.messages,
      maxTokens: dependencies.defaults.replyMaxTokens,
      ...(signal ? { signal } : {}),
    });
    for await (const event of events) {
      if (event.type === 'text-delta') {
        appendedText += event.text;
        writer.append(event.text);
      } else if (event.type === 'notice') prepared.notices.push(event.message);
      else {
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
  }
  try {
    const delivered = failure
      ? await writer.fail({ reason: failure.userMessage })
      : await writer.finish({ finishReason: finishReason ?? 'other', notes: prepared.notices });
    return { delivered, finishReason, usage, failure };
  } catch (error) {
    // The platform refused the final post or edit: the person may not see the whole reply, but the
    // model wrote it and history must stay consistent, so it is recorded as interrupted.
    logger.error({ err: error }, 'final platform call failed; the reply may be incomplete on screen');
    return {
      delivered: { text: appendedText, messages: [], editCount: 0, isComplete: false },
      finishReason,
      usage,
      failure:
        failure ??
        new GatewayError({ kind: 'stream-interrupted', message: 'final platform call failed', cause: error }),
    };
  }
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
}): Promise<string | undefined> {
  const now = dependencies.now ?? (() => new Date());
  const userTurn: StoredTurn = {
    role: 'user',
    authorId: turn.author.id,
    authorName: turn.author.name,
    text: turn.text,
    images: prepared.images.references,
    createdAt: startedAt.toISOString(),
  };
  const assistantTurn: StoredTurn = {
    role: 'assistant',
    authorId: 'parley',
    authorName: 'parley',
    text: streamed.delivered.text,
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
    return assistantTurn.createdAt;
  } catch (error) {
    // The person already has the reply; losing it from memory is worth an error line, not a crash.
    logger.error({ err: error }, 'reply delivered but not recorded in history');
    return undefined;
  }
}

async function recordUsage({
  dependencies,
  turn,
  streamed,
}: {
  dependencies: EngineDependencies;
  turn: IncomingTurn;
  streamed: StreamedReply;
}): Promise<void> {
  if (!dependencies.usageLedger || (!streamed.usage && streamed.delivered.text.length === 0)) return;
  await dependencies.usageLedger.record({
    userId: turn.author.id,
    conversationKey: turn.conversationKey,
    usage: streamed.usage,
    at: (dependencies.now ?? (() => new Date()))(),
  });
}
