import { type ChatActionPayload, decodeActionId, type ImagineActionPayload } from './action-store.ts';
import { attachmentsFromKeptDocuments, attachmentsFromKeptImages, replyWithActions } from './chat-reply.ts';
import type { CommandResponder, CommandServices, CommandUser } from './define-command.ts';
import { drawImages } from './draw-images.ts';
import { rateReply } from './rate-reply.ts';
import { imageGoneMessage, varyReferenceOf } from './reference-images.ts';
import { requesterOf } from './run-command.ts';

const continueText =
  'Please continue your previous answer exactly where it stopped, without repeating anything.';

/**
 * Does what a clicked button says. The button carries only a verb and a token; everything else comes
 * from the action store, so buttons keep working after a restart until they expire. A press that
 * cannot be done says why privately, so the buttons it sits among stay as they were.
 */
export async function runAction({
  actionId,
  user,
  responder,
  services,
  signal,
}: {
  actionId: string;
  user: CommandUser;
  responder: CommandResponder;
  services: CommandServices;
  signal: AbortSignal;
}): Promise<void> {
  const action = decodeActionId(actionId);
  if (!action) {
    services.logger.warn({ actionId }, 'unknown action id');
    await responder.send({ text: 'I do not know that button.', isPrivate: true });
    return;
  }
  if (action.verb === 'chat.stop') {
    if (!services.activeReplies.stop(action.token)) {
      await responder.send({ text: 'That reply has already finished.', isPrivate: true });
      // A Stop that nothing answers to would only invite more presses.
      await responder.removePressedAction?.();
    }
    return;
  }
  const payload = await services.actionStore.load(action.token);
  if (!payload) {
    await responder.send({ text: 'This button has expired. Please ask again.', isPrivate: true });
    return;
  }
  if (action.verb === 'chat.feedback' && payload.kind === 'chat') {
    await rateReply({ payload, isPositive: action.index === 1, user, responder, services });
    return;
  }
  const verdict = await services.access.check({
    requester: requesterOf(user),
    conversationKey: payload.conversationKey,
    command: payload.kind === 'chat' ? 'chat' : 'imagine',
  });
  if (!verdict.isAllowed) {
    await responder.send({ text: verdict.text, isPrivate: true });
    return;
  }
  if (payload.kind === 'chat') {
    await rerunChat({
      payload,
      isContinue: action.verb === 'chat.continue',
      user,
      responder,
      services,
      signal,
    });
    return;
  }
  await redraw({
    payload,
    varyIndex: action.verb === 'imagine.vary' ? (action.index ?? 0) : undefined,
    user,
    responder,
    services,
    signal,
  });
}

async function rerunChat({
  payload,
  isContinue,
  user,
  responder,
  services,
  signal,
}: {
  payload: ChatActionPayload;
  isContinue: boolean;
  user: CommandUser;
  responder: CommandResponder;
  services: CommandServices;
  signal: AbortSignal;
}): Promise<void> {
  const images = isContinue ? [] : await attachmentsFromKeptImages({ payload, services });
  if (images === undefined) {
    await responder.send({ text: imageGoneMessage, isPrivate: true });
    return;
  }
  await replyWithActions({
    services,
    surface: responder.surface,
    signal,
    turn: {
      conversationKey: payload.conversationKey,
      author: isContinue ? { id: user.id, name: user.name } : payload.author,
      text: isContinue ? continueText : payload.text,
      images,
      documents: isContinue ? [] : attachmentsFromKeptDocuments(payload),
    },
    ...(!isContinue && payload.replyCreatedAt ? { replacesReplyCreatedAt: payload.replyCreatedAt } : {}),
    requestedBy: user,
  });
}

async function redraw({
  payload,
  varyIndex,
  user,
  responder,
  services,
  signal,
}: {
  payload: ImagineActionPayload;
  /** Vary of this drawn image; Regenerate when undefined. */
  varyIndex: number | undefined;
  user: CommandUser;
  responder: CommandResponder;
  services: CommandServices;
  signal: AbortSignal;
}): Promise<void> {
  const varied =
    varyIndex === undefined ? undefined : varyReferenceOf({ payload, index: varyIndex, responder });
  if (varyIndex !== undefined && !varied) {
    await responder.send({ text: 'That image is no longer available to vary.', isPrivate: true });
    return;
  }
  const references = varied
    ? [varied]
    : payload.references.length > 0
      ? payload.references
      : (payload.referenceImages ?? []).map((link) => ({ link }));
  await services.engine.runInOrder(payload.conversationKey, () =>
    drawImages({
      services,
      user,
      responder,
      signal,
      request: {
        conversationKey: payload.conversationKey,
        prompt: payload.prompt,
        count: varied ? 1 : payload.count,
        aspectRatio: varied ? 'match_input_image' : payload.aspectRatio,
        outputFormat: payload.outputFormat,
        references,
        isButtonPress: true,
      },
    }),
  );
}
