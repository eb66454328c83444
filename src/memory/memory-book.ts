import { randomBytes } from 'node:crypto';
import type Keyv from 'keyv';
import { z } from 'zod';
import type { Actor } from '../access/actor.ts';
import { type ConversationKey, placeOfConversation } from '../conversation/turn.ts';
import { containsSecret } from '../secrets/secret-detector.ts';

/**
 * Whose memory a note is: the person's (it follows them across the channels of one server or
 * workspace, never to another one or into DMs) or the place's (everyone in the server shares it).
 */
export type MemoryScope = 'person' | 'place';

const noteSchema = z.object({
  id: z.string(),
  text: z.string(),
  scope: z.enum(['person', 'place']),
  /** Who it is about (person notes) or who asked to keep it (place notes). */
  authorId: z.string(),
  authorName: z.string(),
  createdAt: z.iso.datetime(),
});

/** One thing parley was asked to remember: short, dated, attributed. */
export type MemoryNote = z.infer<typeof noteSchema>;

const notesSchema = z.array(noteSchema);

/** The longest note kept, in characters. */
export const maxNoteCharacters = 200;
/** The most notes one person (or one place) keeps; the oldest go first. */
const maxNotesPerScope = 50;

export type RememberOutcome =
  | { readonly isKept: true; readonly note: MemoryNote }
  | { readonly isKept: false; readonly reason: string };

/**
 * What parley remembers across conversations, per person and per place, within one server or
 * workspace. People see and control it with /memory; the model adds and removes notes through the
 * `remember` and `forget` tools, and gets them as a bounded block of its system prompt.
 */
export interface MemoryBook {
  notesOf(request: {
    actor: Actor;
    conversationKey: ConversationKey;
    scope: MemoryScope;
  }): Promise<MemoryNote[]>;
  remember(request: {
    actor: Actor;
    conversationKey: ConversationKey;
    scope: MemoryScope;
    text: string;
    now: Date;
  }): Promise<RememberOutcome>;
  /** Removes one note of the scope, or every one when `id` is undefined; how many went. */
  forget(request: {
    actor: Actor;
    conversationKey: ConversationKey;
    scope: MemoryScope;
    id: string | undefined;
  }): Promise<number>;
}

export function createMemoryBook({ store }: { store: Keyv }): MemoryBook {
  const keyOf = ({
    actor,
    conversationKey,
    scope,
  }: {
    actor: Actor;
    conversationKey: ConversationKey;
    scope: MemoryScope;
  }) => {
    const place = placeOfConversation(conversationKey);
    return scope === 'person'
      ? `person:${place.platform}:${place.workspace}:${actor.id}`
      : `place:${place.platform}:${place.workspace}`;
  };
  const read = async (key: string) => {
    const parsed = notesSchema.safeParse(await store.get(key));
    return parsed.success ? parsed.data : [];
  };
  return {
    notesOf: (request) => read(keyOf(request)),
    async remember(request) {
      const text = request.text.replace(/\s+/g, ' ').trim();
      if (text === '') return { isKept: false, reason: 'there is nothing to remember' };
      // A pasted token or key is never kept: the secret detector (the same the log and /export
      // use) decides what looks like one. Asked before the length, so a long key is refused as a
      // key rather than as too long, and nobody is invited to shorten it until it fits.
      if (containsSecret({ text })) {
        return {
          isKept: false,
          reason: 'it looks like a password, token or key, which parley never remembers',
        };
      }
      if (text.length > maxNoteCharacters) {
        return { isKept: false, reason: `a note may be at most ${maxNoteCharacters} characters` };
      }
      const key = keyOf(request);
      const note: MemoryNote = {
        id: randomBytes(4).toString('hex'),
        text,
        scope: request.scope,
        authorId: request.actor.id,
        authorName: request.actor.name,
        createdAt: request.now.toISOString(),
      };
      const notes = [...(await read(key)), note].slice(-maxNotesPerScope);
      await store.set(key, notes);
      return { isKept: true, note };
    },
    async forget(request) {
      const key = keyOf(request);
      const notes = await read(key);
      const kept = request.id === undefined ? [] : notes.filter((note) => note.id !== request.id);
      if (kept.length === 0) await store.delete(key);
      else await store.set(key, kept);
      return notes.length - kept.length;
    },
  };
}
