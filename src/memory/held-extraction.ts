import { z } from 'zod';
import type { Actor } from '../access/actor.ts';
import type { ConversationKey } from '../conversation/turn.ts';
import type { MemoryMode } from '../environment/spend-access-values.ts';
import type { Gateway } from '../gateway/gateway-client.ts';
import type { Logger } from '../log.ts';
import type { SpendGuard } from '../spending/spend-guard.ts';
import { type MemoryBook, maxNoteCharacters } from './memory-book.ts';
import { isMemoryPlace } from './memory-prompt.ts';

/** How memory is kept for models that cannot call the `remember` tool: a small model reads the message. */
export interface HeldExtraction {
  readonly book: MemoryBook;
  /** The small model that reads the person's message for facts worth keeping (SUMMARY_MODEL). */
  readonly model: string;
}

/** The most notes one message may add, so a long message cannot fill someone's memory at once. */
export const maxNotesPerMessage = 3;
/** The longest part of the person's message the small model reads, in characters. */
const maxMessageCharacters = 4_000;
/** What the extraction may write: a few short notes in JSON. */
const maxCompletionTokens = 300;
/** The longest an extraction's budget hold lasts. */
const extractionHoldMs = 60_000;

const extractedSchema = z.object({
  notes: z
    .array(
      z.object({
        text: z
          .string()
          .describe(
            `One lasting fact or preference about the person, at most ${maxNoteCharacters} characters`,
          ),
      }),
    )
    .describe('Facts worth remembering in later conversations; an empty list when there are none'),
});

/**
 * After a reply of a model without tools (which cannot call `remember`), one cheap call held on the
 * asker's budgets reads what the person said (their message only, never the reply or anyone else's
 * words) and keeps the lasting facts about them as person notes, through the same book as the tool:
 * the same secret refusal, length bound and cap. Where memory is off, in DMs, or when the budget
 * cannot pay, nothing is asked; a failed call or a reply that is not the JSON asked for is logged
 * and dropped. It never fails the reply, which the person already has.
 */
export async function extractNotesAfterReply({
  extraction,
  gateway,
  spending,
  mode,
  actor,
  conversationKey,
  personText,
  now,
  logger,
}: {
  extraction: HeldExtraction;
  gateway: Gateway;
  spending: SpendGuard;
  mode: MemoryMode;
  actor: Actor;
  conversationKey: ConversationKey;
  /** What the person wrote in this turn, as they wrote it. */
  personText: string;
  now: Date;
  logger: Logger;
}): Promise<number> {
  if (mode === 'off' || !isMemoryPlace(actor) || !/\S/.test(personText)) return 0;
  const message = personText.slice(0, maxMessageCharacters);
  const known = await extraction.book.notesOf({ actor, conversationKey, scope: 'person' });
  const knownBlock = known.map((note) => `- ${note.text}`).join('\n');
  const admission = await spending
    .admit({
      userId: actor.id,
      roleIds: actor.roleIds,
      conversationKey,
      model: extraction.model,
      work: {
        kind: 'tokens',
        // Characters over four, as the context budget counts, plus the instructions.
        promptTokens: Math.ceil((message.length + knownBlock.length) / 4) + 300,
        maxCompletionTokens,
      },
      maxDurationMs: extractionHoldMs,
    })
    .catch((error: unknown) => {
      logger.warn({ err: error }, 'could not check the budget for a memory extraction');
      return undefined;
    });
  if (!admission?.isAdmitted) {
    logger.info({ conversationKey }, 'memory not extracted: the budget cannot pay for it');
    return 0;
  }
  try {
    const reply = await gateway.generateStructured({
      model: admission.model,
      schema: extractedSchema,
      schemaName: 'memory_notes',
      maxTokens: maxCompletionTokens,
      hold: admission.hold,
      messages: [
        {
          role: 'user',
          content: `${actor.name} wrote the chat message below to an assistant. List the lasting facts or preferences about ${actor.name} it states that would help in later conversations (their name, role, projects, tastes, how they like answers), each as one short sentence in the third person, in the message's language. Only what ${actor.name} says about themself; no questions, no passing requests, nothing about other people, never passwords, tokens or keys. Leave out what is already known. Usually there is nothing: then answer an empty list.${knownBlock === '' ? '' : `\n\nAlready known:\n${knownBlock}`}\n\nThe message:\n${message}`,
        },
      ],
    });
    const knownTexts = new Set(known.map((note) => note.text.toLowerCase()));
    let keptCount = 0;
    for (const { text } of reply.value.notes.slice(0, maxNotesPerMessage)) {
      if (knownTexts.has(text.trim().toLowerCase())) continue;
      const outcome = await extraction.book.remember({ actor, conversationKey, scope: 'person', text, now });
      if (outcome.isKept) {
        keptCount += 1;
        knownTexts.add(outcome.note.text.toLowerCase());
      } else logger.info({ reason: outcome.reason }, 'an extracted memory note was not kept');
    }
    if (keptCount > 0) logger.info({ conversationKey, keptCount }, 'memory notes extracted from a message');
    return keptCount;
  } catch (error) {
    logger.warn(
      { err: error, model: admission.model, conversationKey },
      'memory extraction failed or answered something else; nothing kept',
    );
    return 0;
  } finally {
    await admission.hold.settle();
  }
}
