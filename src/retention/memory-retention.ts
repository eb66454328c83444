import type { Actor } from '../access/actor.ts';
import { conversationKeyOf, placeOfConversation } from '../conversation/turn.ts';
import type { MemoryBook } from '../memory/memory-book.ts';
import type { KeptData, PersonRequest } from './kept-data.ts';

/**
 * What parley remembers about a person (MEMORY), for /forget and /export. Notes are per server or
 * workspace, so the person's notes are found in the places they wrote in (the people index) and, for
 * an admin's request, in that one place. Notes have no age limit of their own: people remove them
 * with /memory, and /forget removes them all.
 */
export function memoryKeptData({ memory }: { memory: MemoryBook }): KeptData {
  const placesOf = (request: PersonRequest) => {
    const workspaces = new Set(request.conversationKeys.map((key) => placeOfConversation(key).workspace));
    if (request.workspace !== undefined) workspaces.add(request.workspace);
    return [...workspaces].map((workspace) => ({
      conversationKey: conversationKeyOf({ platform: request.person.platform, workspace, channel: 'memory' }),
      // Only the id matters for whose notes these are.
      actor: {
        id: request.person.userId,
        name: request.person.userId,
        roleIds: [],
        isAdmin: false,
        context: 'server',
      } satisfies Actor,
    }));
  };
  return {
    name: 'memory',
    async forget(request) {
      let removed = 0;
      for (const place of placesOf(request)) {
        removed += await memory.forget({ ...place, scope: 'person', id: undefined });
      }
      return removed;
    },
    async export(request) {
      const notes = [];
      for (const place of placesOf(request))
        notes.push(...(await memory.notesOf({ ...place, scope: 'person' })));
      return notes.length === 0 ? undefined : notes;
    },
  };
}
