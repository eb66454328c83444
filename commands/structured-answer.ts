import type { z } from 'zod';
import type { ChatMessage } from '../src/gateway/chat-types.ts';
import { toGatewayError } from '../src/gateway/gateway-error.ts';
import type { CommandResponder, CommandServices, CommandUser } from './define-command.ts';

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
  user: CommandUser;
  conversationKey: string;
  responder: CommandResponder;
  model: string;
  messages: readonly ChatMessage[];
  schema: Schema;
  schemaName: string;
  signal: AbortSignal;
}): Promise<z.output<Schema> | undefined> {
  try {
    const reply = await services.gateway.generateStructured({ model, messages, schema, schemaName, signal });
    await services.usage.record({ userId: user.id, conversationKey, usage: reply.usage, at: services.now() });
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
    await responder.send({ text: `⚠ ${failure.userMessage}` });
    return undefined;
  }
}

/** Lines as a bulleted Markdown list, or a dash when there are none. */
export function bulletList(items: readonly string[]): string {
  return items.length === 0 ? '—' : items.map((item) => `• ${item}`).join('\n');
}
