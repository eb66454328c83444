import { randomBytes } from 'node:crypto';
import type { Requester } from '../src/access/access-policy.ts';
import { type ReplyOutcome, storeUnavailableMessage } from '../src/conversation/engine.ts';
import type { DocumentAttachment, ImageAttachment, IncomingTurn } from '../src/conversation/turn.ts';
import type { Action } from '../src/delivery/card.ts';
import { retryFinalCall } from '../src/delivery/final-call-retries.ts';
import { createStreamingWriter } from '../src/delivery/streaming-writer.ts';
import type { PostedMessage, Surface } from '../src/delivery/surface.ts';
import type { StoredImageRef } from '../src/images/image-store.ts';
import { bytesOfDataUri, detectImageType } from '../src/images/image-type.ts';
import { type ChatActionPayload, encodeActionId } from './action-store.ts';
import type { CommandServices, CommandUser } from './define-command.ts';

/**
 * A chat reply with its buttons: Stop under the first message while it streams, then Regenerate
 * (and Continue when the token limit cut the reply) under the last one. Mentions, /chat, Regenerate
 * and Continue all reply through here, so every chat reply behaves the same on every platform.
 */
export async function replyWithActions({
  services,
  turn,
  surface,
  replacesReplyCreatedAt,
  requestedBy,
  beforeReply,
  signal: callerSignal,
}: {
  services: CommandServices;
  turn: IncomingTurn;
  surface: Surface;
  replacesReplyCreatedAt?: string;
  /** Who pressed the button that asked for this reply, when not the turn's author. */
  requestedBy?: CommandUser;
  /**
   * What to show once the person may be answered (a typing indicator, Slack's "is thinking…"), so a
   * refused person leaves no trace where others see it.
   */
  beforeReply?: () => Promise<unknown>;
  /** Stops the reply too (Ctrl+C in the terminal, shutdown), besides its own Stop button. */
  signal?: AbortSignal;
}): Promise<ReplyOutcome> {
  const requester: Requester = requestedBy
    ? {
        userId: requestedBy.id,
        roleIds: requestedBy.roleIds,
        isAdmin: requestedBy.isAdmin,
        isDirectMessage: requestedBy.isInDirectMessage ?? false,
      }
    : {
        userId: turn.author.id,
        roleIds: turn.author.roleIds ?? [],
        isAdmin: turn.author.isAdmin ?? false,
        isDirectMessage: turn.isDirectMessage ?? false,
      };
  let verdict: Awaited<ReturnType<CommandServices['access']['check']>>;
  try {
    verdict = await services.access.check({
      requester,
      conversationKey: turn.conversationKey,
      command: 'chat',
    });
  } catch (error) {
    // Who may ask is kept in the store: one that does not answer gets the person a line, not silence.
    services.logger.error({ err: error }, 'conversation store unavailable');
    await createStreamingWriter({ surface })
      .fail({ reason: storeUnavailableMessage })
      .catch((writeError: unknown) => services.logger.warn({ err: writeError }, 'could not say so either'));
    return refusedOutcome(services);
  }
  if (!verdict.isAllowed) {
    // No reply where everyone sees it: one private notice an hour, and otherwise nothing.
    if (verdict.notice) {
      await surface.postPrivately?.(verdict.notice).catch((error: unknown) => {
        services.logger.warn({ err: error }, 'could not give a refused person their notice');
      });
    }
    return refusedOutcome(services);
  }
  await beforeReply?.().catch((error: unknown) => {
    services.logger.debug({ err: error }, 'could not show that a reply is coming');
  });
  const replyId = randomBytes(9).toString('base64url');
  const stopSignal = services.activeReplies.start(replyId);
  const signal = callerSignal ? AbortSignal.any([stopSignal, callerSignal]) : stopSignal;
  const stopAction: Action = {
    id: encodeActionId({ verb: 'chat.stop', token: replyId }),
    label: 'Stop',
    style: 'danger',
  };
  const tracked = trackFirstMessage(surface, surface.setActions ? [stopAction] : []);
  // The reply stays active until its buttons are shown, so a shutdown waiting for active replies
  // does not close the platform client between the last text and Stop giving way to Regenerate.
  try {
    const outcome = await services.engine.reply({
      turn,
      surface: tracked.surface,
      signal,
      ...(replacesReplyCreatedAt ? { replacesReplyCreatedAt } : {}),
      ...(requestedBy ? { requestedBy: { id: requestedBy.id, roleIds: requestedBy.roleIds } } : {}),
    });
    if (surface.setActions) {
      // The reply is delivered and recorded; its buttons are a convenience that must not fail it.
      await showFollowUpActions({
        services,
        turn,
        surface,
        outcome,
        firstMessage: tracked.firstMessage(),
      }).catch((error: unknown) =>
        services.logger.warn({ err: error }, 'could not show the buttons of a reply'),
      );
    }
    return outcome;
  } finally {
    services.activeReplies.finish(replyId);
  }
}

// A refused request reached neither the engine nor the gateway.
function refusedOutcome(services: CommandServices): ReplyOutcome {
  return {
    status: 'failed',
    delivered: { text: '', messages: [], editCount: 0, isComplete: false },
    model: services.models.chat,
    finishReason: undefined,
    usage: undefined,
    error: undefined,
  };
}

/**
 * Stop gives way to Regenerate (and Continue). These calls finish the reply on screen (on Slack they
 * also carry its last text), so a passing platform failure is tried again until they land; and when
 * the store cannot save what Regenerate needs, Stop still goes, so no finished reply keeps it.
 */
async function showFollowUpActions({
  services,
  turn,
  surface,
  outcome,
  firstMessage,
}: {
  services: CommandServices;
  turn: IncomingTurn;
  surface: Surface;
  outcome: ReplyOutcome;
  firstMessage: PostedMessage | undefined;
}): Promise<void> {
  const lastMessage = outcome.delivered.messages.at(-1);
  let actions: Action[] = [];
  let savingError: unknown;
  try {
    actions = await followUpActionsOf({
      services,
      turn,
      outcome,
      canRate: surface.hasFeedbackButtons === true,
    });
  } catch (error) {
    savingError = error;
  }
  const setActions = (message: PostedMessage, list: readonly Action[]) =>
    retryFinalCall({
      call: async () => surface.setActions?.(message, list),
      classifyFailure: surface.classifyFailure?.bind(surface),
      onRetry: (error, delayMs) =>
        services.logger.warn({ err: error, delayMs }, 'the buttons of a reply did not land; trying again'),
    });
  if (firstMessage && firstMessage.id !== lastMessage?.id) await setActions(firstMessage, []);
  if (lastMessage) await setActions(lastMessage, actions);
  if (savingError !== undefined) throw savingError;
}

/** Regenerate is offered after every reply, a failed one included: there it is "try again". */
async function followUpActionsOf({
  services,
  turn,
  outcome,
  canRate,
}: {
  services: CommandServices;
  turn: IncomingTurn;
  outcome: ReplyOutcome;
  /** The surface shows 👍/👎 natively: a reply that was written and recorded may be rated. */
  canRate: boolean;
}): Promise<Action[]> {
  const token = await services.actionStore.save({
    kind: 'chat',
    conversationKey: turn.conversationKey,
    author: { id: turn.author.id, name: turn.author.name },
    text: turn.text,
    images: await keepImages({ services, dataUris: outcome.imageDataUris ?? [] }),
    documents: (outcome.documents ?? []).map(({ name, documentHash }) => ({ name, documentHash })),
    ...(outcome.recordedAt ? { replyCreatedAt: outcome.recordedAt } : {}),
  });
  const actions: Action[] = [
    { id: encodeActionId({ verb: 'chat.regenerate', token }), label: 'Regenerate', style: 'secondary' },
  ];
  if (outcome.finishReason === 'length') {
    actions.push({
      id: encodeActionId({ verb: 'chat.continue', token }),
      label: 'Continue',
      style: 'primary',
    });
  }
  if (canRate && outcome.recordedAt !== undefined && outcome.status !== 'failed') {
    actions.push(
      { id: encodeActionId({ verb: 'chat.feedback', token, index: 1 }), label: '👍', feedback: 'positive' },
      { id: encodeActionId({ verb: 'chat.feedback', token, index: 0 }), label: '👎', feedback: 'negative' },
    );
  }
  return actions;
}

// The Stop button goes out with the first post itself, so showing it costs no extra platform call.
function trackFirstMessage(
  surface: Surface,
  firstActions: readonly Action[],
): { surface: Surface; firstMessage: () => PostedMessage | undefined } {
  let firstMessage: PostedMessage | undefined;
  const wrapped: Surface = {
    limits: surface.limits,
    post: async (text, options) => {
      if (firstMessage) return surface.post(text, options);
      firstMessage = await surface.post(text, {
        ...options,
        actions: [...(options?.actions ?? []), ...firstActions],
      });
      return firstMessage;
    },
    edit: (message, text, options) => surface.edit(message, text, options),
    ...(surface.upload ? { upload: surface.upload.bind(surface) } : {}),
    ...(surface.showTyping ? { showTyping: surface.showTyping.bind(surface) } : {}),
    ...(surface.showStatus ? { showStatus: surface.showStatus.bind(surface) } : {}),
    ...(surface.setActions ? { setActions: surface.setActions.bind(surface) } : {}),
    ...(surface.classifyFailure ? { classifyFailure: surface.classifyFailure.bind(surface) } : {}),
    ...(surface.postPrivately ? { postPrivately: surface.postPrivately.bind(surface) } : {}),
    ...(surface.address ? { address: surface.address } : {}),
  };
  return { surface: wrapped, firstMessage: () => firstMessage };
}

/**
 * The turn's images as the model got them, kept once each (by hash) in the image store: the payload
 * holds only references, so three Regenerate payloads of one screenshot do not hold it three times.
 */
async function keepImages({
  services,
  dataUris,
}: {
  services: CommandServices;
  dataUris: readonly string[];
}): Promise<StoredImageRef[]> {
  const refs: StoredImageRef[] = [];
  for (const uri of dataUris) {
    const bytes = bytesOfDataUri(uri);
    const mimeType = detectImageType(bytes);
    if (mimeType) refs.push(await services.actionStore.images.keep({ bytes, mimeType }));
  }
  return refs;
}

/**
 * The documents of a Regenerate payload, read from the document store by hash: never downloaded or
 * parsed again (a document no longer kept gets a note from the reader).
 */
export function attachmentsFromKeptDocuments(payload: ChatActionPayload): DocumentAttachment[] {
  return payload.documents.map(({ name, documentHash }) => ({
    name,
    keptHash: documentHash,
    load: async () => {
      throw new Error('a kept document is read from the store, never loaded again');
    },
  }));
}

/**
 * The images of a Regenerate payload as attachments again, or undefined when one is no longer kept
 * (expired, or evicted by the store's cap): regenerating without it would answer another question.
 */
export async function attachmentsFromKeptImages({
  payload,
  services,
}: {
  payload: ChatActionPayload;
  services: CommandServices;
}): Promise<ImageAttachment[] | undefined> {
  const legacy = (payload.imageDataUris ?? []).map((uri) => bytesOfDataUri(uri));
  const kept = await Promise.all(payload.images.map((ref) => services.actionStore.images.load(ref)));
  if (kept.some((image) => image === undefined)) return undefined;
  return [...legacy, ...kept.map((image) => image?.bytes ?? new Uint8Array())].map((bytes, index) => ({
    name: `image-${index + 1}`,
    load: async () => bytes,
  }));
}
