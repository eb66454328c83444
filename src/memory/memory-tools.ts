import type { Tool } from '../tools/tool.ts';
import { type MemoryBook, maxNoteCharacters } from './memory-book.ts';

/** Where the memory tools come from, for the toolbox and for turning them off where memory is. */
export const memoryToolSource = 'memory';

/** The tool that keeps a note; TOOL_ROLE_IDS names it to keep memory to some roles. */
export const rememberToolName = 'remember';

/**
 * `remember` and `forget`: the model keeps short notes about the person who asks (or, where the
 * owner chose `MEMORY=place`, about the place) when they say something worth keeping, and removes
 * one when told. They change only what parley keeps, which people see and control with /memory, so
 * they do not ask for approval.
 */
export function createMemoryTools({ book, now }: { book: MemoryBook; now: () => Date }): Tool[] {
  const common = {
    annotations: { isReadOnly: false, isDestructive: false, isOpenWorld: false },
    asksApproval: false,
    source: memoryToolSource,
    priceNanos: 0,
    deadlineMs: 10_000,
    maxResultCharacters: 2_000,
  };
  const remember: Tool = {
    ...common,
    name: rememberToolName,
    title: 'Remember',
    description: `Keep a short note (at most ${maxNoteCharacters} characters) for later conversations: a lasting fact or preference the person told you about themself ("about": "me"), or about this server ("about": "place"). Never passwords, tokens or keys. Only when they asked you to remember, or it clearly matters later.`,
    inputSchema: {
      type: 'object',
      properties: {
        text: { type: 'string', description: 'The note, in one short sentence' },
        about: { type: 'string', enum: ['me', 'place'], description: 'The person who asks, or this server' },
      },
      required: ['text'],
      additionalProperties: false,
    },
    describeCall: () => '🧠 remembering',
    async run({ arguments: toolArguments, context }) {
      const scope = toolArguments.about === 'place' ? 'place' : 'person';
      const outcome = await book.remember({
        actor: context.actor,
        conversationKey: context.conversationKey,
        scope,
        text: typeof toolArguments.text === 'string' ? toolArguments.text : '',
        now: now(),
      });
      return outcome.isKept
        ? { text: `Kept as note ${outcome.note.id}.` }
        : { text: `Not kept: ${outcome.reason}.`, isError: true };
    },
  };
  const forget: Tool = {
    ...common,
    name: 'forget',
    title: 'Forget',
    description:
      'Remove one of the notes you remember (by the id shown beside it), when the person asks you to forget it or it is no longer true.',
    inputSchema: {
      type: 'object',
      properties: {
        id: { type: 'string', description: 'The note id' },
        about: { type: 'string', enum: ['me', 'place'] },
      },
      required: ['id'],
      additionalProperties: false,
    },
    describeCall: () => '🧠 forgetting',
    async run({ arguments: toolArguments, context }) {
      if (typeof toolArguments.id !== 'string') return { text: 'forget takes {"id": "…"}.', isError: true };
      const removed = await book.forget({
        actor: context.actor,
        conversationKey: context.conversationKey,
        scope: toolArguments.about === 'place' ? 'place' : 'person',
        id: toolArguments.id,
      });
      return removed > 0 ? { text: 'Forgotten.' } : { text: 'There is no such note.', isError: true };
    },
  };
  return [remember, forget];
}
