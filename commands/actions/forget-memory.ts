import { type ActionDefinition, defineAction } from '../define-action.ts';
import { forgetMemoryNotes } from '../forget-memory-notes.ts';

/**
 * Forget, under /memory: one note or all of them. A person's notes only by that person; the place's
 * only by someone who may change them now (admins, ACCESS_SHARED_ROLE_IDS), asked through the one gate.
 */
export const forgetMemoryAction: ActionDefinition = defineAction({
  verb: 'memory.forget',
  acknowledgement: 'in-place',
  async run({ pressed, user, responder, services }) {
    const payload = await services.actionStore.load(pressed.token);
    if (payload?.kind !== 'memory') {
      await responder.send({ text: 'This button has expired. Run /memory again.', isPrivate: true });
      return;
    }
    const outcome = await forgetMemoryNotes({
      services,
      user,
      conversationKey: payload.conversationKey,
      scope: payload.scope,
      ownerId: payload.ownerId,
      noteId: payload.noteId,
      via: '/memory',
    });
    await responder.send({ text: outcome.text, isPrivate: true });
  },
});
