import {
  estimateTitlePromptTokens,
  type FirstExchange,
  firstWordsTitle,
  titleMaxRequests,
  titleMaxTokens,
  type WrittenTitle,
  writeTitle,
} from '../src/conversation/title-writer.ts';
import type { CommandServices } from './define-command.ts';

const titleHoldMs = 2 * 60_000;

/**
 * A title for a conversation after its first exchange, paid for like every other gateway call: the
 * request is held on the person's budgets first, and a person whose budget cannot pay for it gets
 * the question's first words instead (a title is never worth a refusal message).
 */
export async function titleConversation({
  services,
  requester,
  conversationKey,
  exchange,
}: {
  services: CommandServices;
  requester: { readonly id: string; readonly roleIds: readonly string[] };
  conversationKey: string;
  exchange: FirstExchange;
}): Promise<WrittenTitle> {
  const fromQuestion: WrittenTitle = {
    title: firstWordsTitle(exchange.question),
    origin: 'first-words',
    usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
  };
  const admission = await services.spending
    .admit({
      userId: requester.id,
      roleIds: requester.roleIds,
      conversationKey,
      model: services.models.title,
      work: {
        kind: 'tokens',
        promptTokens: estimateTitlePromptTokens(exchange),
        maxCompletionTokens: titleMaxTokens,
        attempts: titleMaxRequests,
      },
      maxDurationMs: titleHoldMs,
    })
    .catch((error: unknown) => {
      services.logger.warn({ err: error }, 'could not check the budget for a title');
      return undefined;
    });
  if (!admission?.isAdmitted) return fromQuestion;
  const written = await writeTitle({
    gateway: services.gateway,
    model: admission.model,
    exchange,
    hold: admission.hold,
    logger: services.logger,
  });
  await admission.hold.settle();
  return written;
}
