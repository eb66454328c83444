import type { ActionDefinition } from '../define-action.ts';
import { defineAction } from '../define-action.ts';
import { forgetPersonData } from '../forget-person-data.ts';

/** Forget, under a /forget: only the person who asked may press it, and it works once. */
export const confirmForgetAction: ActionDefinition = defineAction({
  verb: 'data.forget',
  acknowledgement: 'new-answer',
  async run({ pressed, user, responder, services }) {
    const payload = await services.actionStore.load(pressed.token);
    if (payload?.kind !== 'forget') {
      await responder.send({
        text: 'This confirmation has expired or was used; run /forget again.',
        isPrivate: true,
      });
      return;
    }
    if (payload.askerId !== user.id) {
      await responder.send({ text: 'Only the person who asked can confirm this.', isPrivate: true });
      return;
    }
    const isSelf = payload.subjectId === user.id;
    // An admin's /forget of a member is done when pressed: still an admin here, asked now.
    if (!isSelf) {
      const verdict = await services.access.authorize({
        actor: user,
        conversationKey: payload.conversationKey,
        capability: { kind: 'administer' },
      });
      if (!verdict.isAllowed) {
        await responder.send({ text: verdict.text, isPrivate: true });
        return;
      }
    }
    await services.actionStore.remove(pressed.token);
    await responder.removePressedAction?.();
    const outcome = await forgetPersonData({
      services,
      user,
      conversationKey: payload.conversationKey,
      subject: { platform: payload.platform, userId: payload.subjectId, workspace: payload.workspace },
    });
    await responder.send({ text: outcome.text, isPrivate: true });
  },
});
