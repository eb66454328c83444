import type { Actor } from '../src/access/actor.ts';
import type { ConversationKey } from '../src/conversation/turn.ts';
import { placeOfConversation } from '../src/conversation/turn.ts';
import type { MemoryScope } from '../src/memory/memory-book.ts';
import type { CommandServices } from './define-command.ts';

/** How a Forget ended: the words for the person, and whether anything went. */
export interface ForgetOutcome {
  readonly isForgotten: boolean;
  readonly text: string;
}

/**
 * Forget, one note or all of them, wherever it is pressed (under /memory, or in the console): a
 * person's notes only by that person; the place's only by someone who may change them now (admins,
 * ACCESS_SHARED_ROLE_IDS), asked through the one gate; the place's in the audit trail.
 */
export async function forgetMemoryNotes({
  services,
  user,
  conversationKey,
  scope,
  ownerId,
  noteId,
  via,
}: {
  services: Pick<CommandServices, 'access' | 'memory' | 'audit' | 'logger'>;
  user: Actor;
  conversationKey: ConversationKey;
  scope: MemoryScope;
  /** Whose notes, for a person's. */
  ownerId: string | undefined;
  /** One note, or every one of the scope when undefined. */
  noteId: string | undefined;
  /** Where it was asked, for the trail: `/memory`, `the console`. */
  via: string;
}): Promise<ForgetOutcome> {
  const isAllowed =
    scope === 'person'
      ? ownerId === user.id
      : (
          await services.access.authorize({
            actor: user,
            conversationKey,
            capability: { kind: 'write-shared', thing: 'place-memory' },
          })
        ).isAllowed;
  if (!isAllowed) {
    return {
      isForgotten: false,
      text: 'Only the person these notes are about (or an admin, for the server’s) can forget them.',
    };
  }
  const removed = await services.memory.forget({ actor: user, conversationKey, scope, id: noteId });
  services.logger.info({ userId: user.id, scope, removed, via }, 'memory forgotten');
  if (scope === 'place' && removed > 0) {
    const place = placeOfConversation(conversationKey);
    await services.audit.record({
      platform: place.platform,
      workspace: place.workspace,
      channel: place.channel,
      actor: { id: user.id, name: user.name },
      kind: 'shared-memory',
      what:
        noteId === undefined
          ? `removed every server note with ${via} (${removed})`
          : `removed server note ${noteId} with ${via}`,
      result: 'done',
    });
  }
  return {
    isForgotten: removed > 0,
    text:
      removed === 0
        ? 'Nothing to forget: it was already gone.'
        : `Forgotten: ${removed === 1 ? '1 note' : `${removed} notes`}.`,
  };
}
