import { placeOfConversation } from '../../src/conversation/turn.ts';
import type { Action } from '../../src/delivery/card.ts';
import type { MemoryNote, MemoryScope } from '../../src/memory/memory-book.ts';
import { encodeActionId } from '../action-store.ts';
import { booleanOption } from '../command-options.ts';
import { defineCommand } from '../define-command.ts';

/** Forget buttons shown one per note, at most this many (the platforms' button limits), then Forget all. */
const maxNoteButtons = 10;

/**
 * /memory: what parley remembers about you here, each note with its Forget button, and Forget all;
 * admins see (and clear) the server's shared notes with --place. Always private.
 */
export const memoryCommand = defineCommand({
  name: 'memory',
  description: 'What parley remembers about you here, with buttons to forget; admins: --place',
  options: {
    place: booleanOption({ description: "The server's shared notes (admins)" }),
  },
  runsInConversationOrder: false,
  isAnswerPrivate: () => true,
  async run({ input, conversationKey, user, responder, services }) {
    const scope: MemoryScope = input.place ? 'place' : 'person';
    if (scope === 'place') {
      const verdict = await services.access.authorize({
        actor: user,
        conversationKey,
        capability: { kind: 'administer' },
      });
      if (!verdict.isAllowed) {
        await responder.send({ text: verdict.text, isPrivate: true });
        return;
      }
    }
    const { memory } = await services.places.settingsAt(placeOfConversation(conversationKey));
    const notes = await services.memory.notesOf({ actor: user, conversationKey, scope });
    const state = memory === 'off' ? 'Memory is off here (an admin can turn it on with /config MEMORY).' : '';
    if (notes.length === 0) {
      await responder.send({
        text: [
          state,
          scope === 'place'
            ? 'parley keeps no notes about this server.'
            : 'parley remembers nothing about you here.',
        ]
          .filter((line) => line !== '')
          .join('\n'),
        isPrivate: true,
      });
      return;
    }
    const save = (noteId: string | undefined) =>
      services.actionStore.save({
        kind: 'memory',
        conversationKey,
        scope,
        ownerId: user.id,
        ...(noteId === undefined ? {} : { noteId }),
      });
    const shown = notes.slice(-maxNoteButtons);
    const actions: Action[] = [];
    for (const note of shown) {
      actions.push({
        id: encodeActionId({ verb: 'memory.forget', token: await save(note.id) }),
        label: `Forget ${note.id}`,
        style: 'secondary',
      });
    }
    actions.push({
      id: encodeActionId({ verb: 'memory.forget', token: await save(undefined) }),
      label: 'Forget all',
      style: 'danger',
    });
    const heading =
      scope === 'place'
        ? 'What parley remembers about this server:'
        : 'What parley remembers about you here:';
    await responder.send({
      text: [state, heading, ...notes.map(lineOf)].filter((line) => line !== '').join('\n'),
      actions,
      isPrivate: true,
    });
  },
});

function lineOf(note: MemoryNote): string {
  return `• \`${note.id}\` ${note.text} _(${note.createdAt.slice(0, 10)}, ${note.authorName})_`;
}
