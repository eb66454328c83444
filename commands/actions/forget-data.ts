import { placeOfConversation } from '../../src/conversation/turn.ts';
import type { ActionDefinition } from '../define-action.ts';
import { defineAction } from '../define-action.ts';

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
    const report = await services.personData.forget({
      person: { platform: payload.platform, userId: payload.subjectId },
      ...(payload.workspace === undefined ? {} : { workspace: payload.workspace }),
    });
    const failed = Object.entries(report).filter(([, count]) => count < 0);
    const removed = Object.values(report).reduce((total, count) => total + Math.max(0, count), 0);
    const who = isSelf ? 'you' : `member ${payload.subjectId}`;
    const place = placeOfConversation(payload.conversationKey);
    await services.audit.record({
      platform: place.platform,
      workspace: place.workspace,
      channel: place.channel,
      // Their name has just left the trail: this entry does not bring it back.
      actor: { id: user.id, name: isSelf ? 'forgotten person' : user.name },
      ...(isSelf ? {} : { onBehalfOf: { id: payload.subjectId, name: payload.subjectId } }),
      kind: 'forget',
      what: isSelf
        ? `/forget me: ${removed} entries deleted`
        : `/forget --user ${payload.subjectId}: ${removed} entries deleted in this server`,
      result: failed.length === 0 ? 'done' : 'failed',
      details: { removed, isSelf },
    });
    await responder.send({
      text:
        failed.length === 0
          ? `Done: parley no longer keeps anything about ${who} (${removed} entries deleted, ${report.history ?? 0} of them conversation turns).`
          : `Partly done: ${removed} entries about ${who} deleted, but ${failed.map(([name]) => name).join(', ')} could not be reached. Run /forget again in a while.`,
      isPrivate: true,
    });
  },
});
