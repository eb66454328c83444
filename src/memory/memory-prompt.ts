import type { Actor } from '../access/actor.ts';
import type { ConversationKey } from '../conversation/turn.ts';
import type { MemoryMode } from '../environment/spend-access-values.ts';
import type { MemoryBook, MemoryNote } from './memory-book.ts';

/** The most of the system prompt memory may take, in characters: the newest notes first. */
const maxBlockCharacters = 2_000;

/**
 * What parley remembers for this reply, as a block of the system prompt: the asker's notes, and the
 * place's where the owner chose `place`; nothing in DMs or where memory is off. The model is asked
 * to say when it used a note, so people can tell remembered facts from new ones.
 */
export async function memoryBlockFor({
  book,
  mode,
  actor,
  conversationKey,
  keptBy,
}: {
  book: MemoryBook;
  mode: MemoryMode;
  actor: Actor;
  conversationKey: ConversationKey;
  /**
   * How new notes are kept: by the model through the memory tools, or (models without tools) by a
   * small model reading the person's message after the reply, which this model need not do anything for.
   */
  keptBy: 'tools' | 'extraction';
}): Promise<string> {
  const notes = await readMemoryNotes({ book, mode, actor, conversationKey });
  return memoryBlockOf({ notes, mode, actor, keptBy });
}

/**
 * The notes a reply's memory block is made of: the asker's, and the place's where the owner chose
 * `place`; none in DMs or where memory is off. Read apart from the block so a turn can read them
 * beside its other facts (conversation/turn-facts.ts), before it knows how new notes are kept.
 */
export async function readMemoryNotes({
  book,
  mode,
  actor,
  conversationKey,
}: {
  book: MemoryBook;
  mode: MemoryMode;
  actor: Actor;
  conversationKey: ConversationKey;
}): Promise<readonly MemoryNote[]> {
  if (mode === 'off' || !isMemoryPlace(actor)) return [];
  const [personal, shared] = await Promise.all([
    book.notesOf({ actor, conversationKey, scope: 'person' }),
    mode === 'place' ? book.notesOf({ actor, conversationKey, scope: 'place' }) : Promise.resolve([]),
  ]);
  return [...personal, ...shared];
}

/** The memory block of the system prompt from notes `readMemoryNotes` read ('' where there is no memory). */
export function memoryBlockOf({
  notes,
  mode,
  actor,
  keptBy,
}: {
  notes: readonly MemoryNote[];
  mode: MemoryMode;
  actor: Actor;
  keptBy: 'tools' | 'extraction';
}): string {
  if (mode === 'off' || !isMemoryPlace(actor)) return '';
  const lines: string[] = [];
  let length = 0;
  for (const note of [...notes].sort((first, second) => second.createdAt.localeCompare(first.createdAt))) {
    const line = lineOf(note);
    if (length + line.length > maxBlockCharacters) break;
    lines.push(line);
    length += line.length + 1;
  }
  const keeping =
    keptBy === 'tools'
      ? 'Keep new lasting facts with the remember tool; remove wrong ones with forget.'
      : 'Lasting facts people state about themselves are noted for you after each reply; they can see and remove notes with /memory.';
  if (lines.length === 0)
    return `You can remember things about ${actor.name} across conversations here. ${keeping}`;
  return `What you remember from earlier conversations (notes, with their ids). When you use one, say so briefly, e.g. "(from memory)". ${keeping}\n${lines.join('\n')}`;
}

function lineOf(note: MemoryNote): string {
  const about =
    note.scope === 'person' ? `about ${note.authorName}` : `about this server, from ${note.authorName}`;
  return `- [${note.id}] ${note.createdAt.slice(0, 10)}, ${about}: ${note.text}`;
}

/** Memory lives in a server (per server) and at the owner's terminal; never in DMs or user installs. */
export function isMemoryPlace(actor: Actor): boolean {
  return actor.context === 'server' || actor.context === 'terminal';
}
