import { decodeActionId } from './action-store.ts';
import { attachmentsFromDataUris, replyWithActions } from './chat-reply.ts';
import type { CommandResponder, CommandServices, CommandUser } from './define-command.ts';
import { drawImages } from './draw-images.ts';

const continueText =
  'Please continue your previous answer exactly where it stopped, without repeating anything.';

/**
 * Does what a clicked button says. The button carries only a verb and a token; everything else comes
 * from the action store, so buttons keep working after a restart until they expire.
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
  if (payload.kind === 'chat') {
    const isContinue = action.verb === 'chat.continue';
    await replyWithActions({
      services,
      surface: responder.surface,
      signal,
      turn: {
        conversationKey: payload.conversationKey,
        author: isContinue ? { id: user.id, name: user.name } : payload.author,
        text: isContinue ? continueText : payload.text,
        images: isContinue ? [] : attachmentsFromDataUris(payload.imageDataUris),
      },
      ...(!isContinue && payload.replyCreatedAt ? { replacesReplyCreatedAt: payload.replyCreatedAt } : {}),
    });
    return;
  }
  const varied = action.verb === 'imagine.vary' ? payload.generatedImages[action.index ?? 0] : undefined;
  if (action.verb === 'imagine.vary' && !varied) {
    await responder.send({ text: 'That image is no longer available.', isPrivate: true });
    return;
  }
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
        referenceImages: varied ? [varied] : payload.referenceImages,
      },
    }),
  );
}
