import { defineAction } from '../define-action.ts';

/** Stop, on a reply being written: its text so far stays. */
export const stopReplyAction = defineAction({
  verb: 'chat.stop',
  acknowledgement: 'in-place',
  async run({ pressed, responder, services }) {
    if (services.activeReplies.stop(pressed.token)) return;
    await responder.send({ text: 'That reply has already finished.', isPrivate: true });
    // A Stop that nothing answers to would only invite more presses.
    await responder.removePressedAction?.();
  },
});
