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
    await services.actionStore.remove(pressed.token);
    await responder.removePressedAction?.();
    const report = await services.personData.forget({
      person: { platform: payload.platform, userId: payload.subjectId },
      // The summaries shared with others are rewritten on the presser's budgets, as summaries are folded.
      asker: user,
      ...(payload.workspace === undefined ? {} : { workspace: payload.workspace }),
    });
    const failed = Object.entries(report).filter(([, count]) => count < 0);
    const removed = Object.values(report).reduce((total, count) => total + Math.max(0, count), 0);
    const who = payload.subjectId === user.id ? 'you' : `member ${payload.subjectId}`;
    await responder.send({
      text:
        failed.length === 0
          ? `Done: parley no longer keeps anything about ${who} (${removed} entries deleted, ${report.history ?? 0} of them conversation turns).`
          : `Partly done: ${removed} entries about ${who} deleted, but ${failed.map(([name]) => name).join(', ')} could not be reached. Run /forget again in a while.`,
      isPrivate: true,
    });
  },
});
