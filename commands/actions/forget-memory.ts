import { placeOfConversation } from '../../src/conversation/turn.ts';
import { type ActionDefinition, defineAction } from '../define-action.ts';

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
    const isAllowed =
      payload.scope === 'person'
        ? payload.ownerId === user.id
        : (
            await services.access.authorize({
              actor: user,
              conversationKey: payload.conversationKey,
              capability: { kind: 'write-shared', thing: 'place-memory' },
            })
          ).isAllowed;
    if (!isAllowed) {
      await responder.send({
        text: 'Only the person these notes are about (or an admin, for the server’s) can forget them.',
        isPrivate: true,
      });
      return;
    }
    const removed = await services.memory.forget({
      actor: user,
      conversationKey: payload.conversationKey,
      scope: payload.scope,
      id: payload.noteId,
    });
    services.logger.info({ userId: user.id, scope: payload.scope, removed }, 'memory forgotten with /memory');
    if (payload.scope === 'place' && removed > 0) {
      const place = placeOfConversation(payload.conversationKey);
      await services.audit.record({
        platform: place.platform,
        workspace: place.workspace,
        channel: place.channel,
        actor: { id: user.id, name: user.name },
        kind: 'shared-memory',
        what:
          payload.noteId === undefined
            ? `removed every server note with /memory (${removed})`
            : `removed server note ${payload.noteId} with /memory`,
        result: 'done',
      });
    }
    await responder.send({
      text:
        removed === 0
          ? 'Nothing to forget: it was already gone.'
          : `Forgotten: ${removed === 1 ? '1 note' : `${removed} notes`}.`,
      isPrivate: true,
    });
  },
});
