import type { Actor } from '../../src/access/actor.ts';
import type { ChatActionPayload } from '../action-store.ts';
import { attachmentsFromKeptDocuments, attachmentsFromKeptImages, replyWithActions } from '../chat-reply.ts';
import { defineAction } from '../define-action.ts';
import type { CommandResponder, CommandServices } from '../define-command.ts';
import { imageGoneMessage } from '../reference-images.ts';
import { loadPressedPayload } from './pressed-payload.ts';

const continueText =
  'Please continue your previous answer exactly where it stopped, without repeating anything.';

/** Regenerate, under a chat reply: the same turn answered again, in place of the old reply. */
export const regenerateChatAction = defineAction({
  verb: 'chat.regenerate',
  acknowledgement: 'new-answer',
  async run(context) {
    const payload = await loadPressedPayload({ ...context, kind: 'chat' });
    if (payload) await rerunChat({ ...context, payload, isContinue: false });
  },
});

/** Continue, under a reply the token limit cut: the model picks up where it stopped. */
export const continueChatAction = defineAction({
  verb: 'chat.continue',
  acknowledgement: 'new-answer',
  async run(context) {
    const payload = await loadPressedPayload({ ...context, kind: 'chat' });
    if (payload) await rerunChat({ ...context, payload, isContinue: true });
  },
});

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
  user: Actor;
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
      // Whoever pressed asks for the new reply: access decides on them, and their budgets pay.
      actor: user,
      text: isContinue ? continueText : payload.text,
      images,
      documents: isContinue ? [] : attachmentsFromKeptDocuments(payload),
    },
    ...(!isContinue && payload.replyCreatedAt ? { replacesReplyCreatedAt: payload.replyCreatedAt } : {}),
    isAnswerOwed: true,
  });
}
