import type { z } from 'zod';
import type { Actor } from '../src/access/actor.ts';
import { estimateTokens } from '../src/conversation/context-budget.ts';
import type { ChatMessage } from '../src/gateway/chat-types.ts';
import { toGatewayError } from '../src/gateway/gateway-error.ts';
import type { CommandResponder, CommandServices } from './define-command.ts';

/**
 * The most a structured answer may write (sent as `max_tokens`), so its worst case has a bound a
 * budget can hold: a long summary card fits well within it.
 */
export const structuredMaxTokens = 4_096;
/** The JSON instructions and schema parley adds to the prompt, roughly. */
const schemaPromptTokens = 600;
const structuredHoldMs = 10 * 60_000;

/**
 * Runs one structured request for a command: the answer validated against `schema`, usage counted,
 * and on failure one short message to the person with the details (and any raw reply) in the log.
 */
export async function askForStructuredAnswer<Schema extends z.ZodType>({
  services,
  user,
  conversationKey,
  responder,
  model,
  messages,
  schema,
  schemaName,
  signal,
}: {
  services: CommandServices;
  user: Actor;
  conversationKey: string;
  responder: CommandResponder;
  model: string;
  messages: readonly ChatMessage[];
  schema: Schema;
  schemaName: string;
  signal: AbortSignal;
}): Promise<z.output<Schema> | undefined> {
  const promptTokens =
    schemaPromptTokens + messages.reduce((total, message) => total + estimateTokens(message), 0);
  const admission = await services.spending.admit({
    userId: user.id,
    roleIds: user.roleIds,
    conversationKey,
    model,
    work: {
      kind: 'tokens',
      promptTokens,
      maxCompletionTokens: structuredMaxTokens,
      // A reply that does not validate gets one repair request.
      attempts: 2,
    },
    maxDurationMs: structuredHoldMs,
  });
  if (!admission.isAdmitted) {
    await responder.send({ text: `⚠ ${admission.message}`, isPrivate: true });
    return undefined;
  }
  try {
    const reply = await services.gateway.generateStructured({
      model,
      messages,
      schema,
      schemaName,
      signal,
      maxTokens: structuredMaxTokens,
      hold: admission.hold,
    });
    if (admission.notes.length > 0) {
      await responder.send({ text: admission.notes.map((note) => `_${note}_`).join('\n'), isPrivate: true });
    }
    services.logger.info(
      { schemaName, model, mode: reply.mode, attempts: reply.attempts },
      'structured answer',
    );
    return reply.value;
  } catch (error) {
    const failure = toGatewayError(error);
    services.logger.warn(
      { err: failure, kind: failure.kind, model, schemaName, rawReply: failure.detail },
      'structured answer failed',
    );
    const reason = await services.spending.describeFailure({ error: failure, conversationKey });
    await responder.send({ text: `⚠ ${reason}` });
    return undefined;
  } finally {
    // Each request (a repair included) recorded what it used on the hold as it ended.
    await admission.hold.settle();
  }
}

/** Lines as a bulleted Markdown list, or a dash when there are none. */
export function bulletList(items: readonly string[]): string {
  return items.length === 0 ? '—' : items.map((item) => `• ${item}`).join('\n');
}
