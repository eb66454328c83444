import type { AccessGate } from '../access/access-gate.ts';
import { holdsSharedWriting } from '../access/access-policy.ts';
import type { Actor } from '../access/actor.ts';
import type { PlaceSettingsReader } from '../administration/place-settings.ts';
import type { AuditLog } from '../audit/audit-log.ts';
import { type ConversationKey, placeOfConversation } from '../conversation/turn.ts';
import type { Tool, ToolOutput } from '../tools/tool.ts';
import { type MemoryBook, type MemoryScope, maxNoteCharacters } from './memory-book.ts';

/** Where the memory tools come from, for the toolbox and for turning them off where memory is. */
export const memoryToolSource = 'memory';

/** The tool that keeps a note; TOOL_ROLE_IDS names it to keep memory to some roles. */
export const rememberToolName = 'remember';

/** What a memory tool is told to do with the place's notes, checked again when it runs. */
export interface SharedMemoryRules {
  readonly places: PlaceSettingsReader;
  readonly access: AccessGate;
  /** Every change to the place's notes is recorded, with whose turn asked for it. */
  readonly audit: AuditLog;
}

/**
 * `remember` and `forget`: the model keeps short notes about the person who asks when they say
 * something worth keeping, and removes one when told. They change only what parley keeps about the
 * asker, which people see and control with /memory, so they do not ask for approval. The place's
 * notes (`about: "place"`, where the owner chose `MEMORY=place`) are everyone's: the model is offered
 * them only on the turns of someone who may change them (admins, ACCESS_SHARED_ROLE_IDS), and each
 * call asks the access gate again with the rules in force when it runs.
 */
export function createMemoryTools({
  book,
  now,
  shared,
}: {
  book: MemoryBook;
  now: () => Date;
  shared: SharedMemoryRules;
}): Tool[] {
  const common = {
    annotations: { isReadOnly: false, isDestructive: false, isOpenWorld: false },
    asksApproval: false,
    source: memoryToolSource,
    priceNanos: 0,
    deadlineMs: 10_000,
    maxResultCharacters: 2_000,
  };
  /** The scope a call names, or why it cannot be served here and now. */
  const scopeOf = async (
    about: unknown,
    actor: Actor,
    conversationKey: ConversationKey,
  ): Promise<{ scope: MemoryScope } | { refusal: ToolOutput }> => {
    if (about === undefined || about === 'me') return { scope: 'person' };
    if (about !== 'place') {
      return { refusal: { text: '"about" is "me" or "place".', isError: true } };
    }
    const { memory } = await shared.places.settingsAt(placeOfConversation(conversationKey));
    if (memory !== 'place') {
      return {
        refusal: {
          text: 'Not done: this server keeps no shared notes (MEMORY is not place).',
          isError: true,
        },
      };
    }
    const isPermitted = await shared.access.permits({
      actor,
      conversationKey,
      capability: { kind: 'write-shared', thing: 'place-memory' },
    });
    if (!isPermitted) {
      return {
        refusal: {
          text: `Not done: ${actor.name} may not change the server's shared notes; only admins (or roles they chose) may.`,
          isError: true,
        },
      };
    }
    return { scope: 'place' };
  };
  const recordSharedChange = ({
    actor,
    conversationKey,
    what,
  }: {
    actor: Actor;
    conversationKey: ConversationKey;
    what: string;
  }) => {
    const place = placeOfConversation(conversationKey);
    return shared.audit.record({
      platform: place.platform,
      workspace: place.workspace,
      channel: place.channel,
      actor: { id: actor.id, name: actor.name },
      kind: 'shared-memory',
      what,
      result: 'done',
    });
  };
  const aboutProperty = (mayWriteShared: boolean) =>
    mayWriteShared
      ? {
          about: {
            type: 'string',
            enum: ['me', 'place'],
            description: 'The person who asks, or this server (notes everyone here shares)',
          },
        }
      : {};
  const rememberFor = (mayWriteShared: boolean): Tool => ({
    ...common,
    name: rememberToolName,
    title: 'Remember',
    description: `Keep a short note (at most ${maxNoteCharacters} characters) for later conversations: a lasting fact or preference the person told you about themself${mayWriteShared ? ' ("about": "me"), or about this server ("about": "place")' : ''}. Never passwords, tokens or keys. Only when they asked you to remember, or it clearly matters later.`,
    inputSchema: {
      type: 'object',
      properties: {
        text: { type: 'string', description: 'The note, in one short sentence' },
        ...aboutProperty(mayWriteShared),
      },
      required: ['text'],
      additionalProperties: false,
    },
    describeCall: () => '🧠 remembering',
    async run({ arguments: toolArguments, context }) {
      const decided = await scopeOf(toolArguments.about, context.actor, context.conversationKey);
      if ('refusal' in decided) return decided.refusal;
      const outcome = await book.remember({
        actor: context.actor,
        conversationKey: context.conversationKey,
        scope: decided.scope,
        text: typeof toolArguments.text === 'string' ? toolArguments.text : '',
        now: now(),
      });
      if (decided.scope === 'place' && outcome.isKept) {
        await recordSharedChange({
          actor: context.actor,
          conversationKey: context.conversationKey,
          what: `the model kept server note ${outcome.note.id}`,
        });
      }
      return outcome.isKept
        ? { text: `Kept as note ${outcome.note.id}.` }
        : { text: `Not kept: ${outcome.reason}.`, isError: true };
    },
  });
  const forgetFor = (mayWriteShared: boolean): Tool => ({
    ...common,
    name: 'forget',
    title: 'Forget',
    description:
      'Remove one of the notes you remember (by the id shown beside it), when the person asks you to forget it or it is no longer true.',
    inputSchema: {
      type: 'object',
      properties: {
        id: { type: 'string', description: 'The note id' },
        ...aboutProperty(mayWriteShared),
      },
      required: ['id'],
      additionalProperties: false,
    },
    describeCall: () => '🧠 forgetting',
    async run({ arguments: toolArguments, context }) {
      if (typeof toolArguments.id !== 'string') return { text: 'forget takes {"id": "…"}.', isError: true };
      const decided = await scopeOf(toolArguments.about, context.actor, context.conversationKey);
      if ('refusal' in decided) return decided.refusal;
      const removed = await book.forget({
        actor: context.actor,
        conversationKey: context.conversationKey,
        scope: decided.scope,
        id: toolArguments.id,
      });
      if (decided.scope === 'place' && removed > 0) {
        await recordSharedChange({
          actor: context.actor,
          conversationKey: context.conversationKey,
          what: `the model removed server note ${toolArguments.id}`,
        });
      }
      return removed > 0 ? { text: 'Forgotten.' } : { text: 'There is no such note.', isError: true };
    },
  });
  const tailored = (build: (mayWriteShared: boolean) => Tool): Tool => {
    const personOnly = build(false);
    const full: Tool = {
      ...build(true),
      tailorFor: ({ actor, settings }) =>
        settings.memory === 'place' && holdsSharedWriting({ rules: settings.access, actor })
          ? full
          : personOnly,
    };
    return full;
  };
  return [tailored(rememberFor), tailored(forgetFor)];
}
