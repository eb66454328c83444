import { defineAction } from '../define-action.ts';

/** Stop, on a reply being written: its text so far stays. */
export const stopReplyAction = defineAction({
  verb: 'chat.stop',
  acknowledgement: 'in-place',
  async run({ pressed, user, responder, services }) {
    const asker = services.activeReplies.askerOf(pressed.token);
    if (asker) {
      // Only the asker and admins: anyone else (a blocked person included) is told so privately.
      const verdict = await services.access.authorize({
        actor: user,
        conversationKey: asker.conversationKey,
        capability: { kind: 'stop-reply', askerId: asker.askerId },
      });
      if (!verdict.isAllowed) {
        await responder.send({ text: verdict.text, isPrivate: true });
        return;
      }
    }
    if (services.activeReplies.stop(pressed.token)) return;
    await responder.send({ text: 'That reply has already finished.', isPrivate: true });
    // A Stop that nothing answers to would only invite more presses.
    await responder.removePressedAction?.();
  },
});
