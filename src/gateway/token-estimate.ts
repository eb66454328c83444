import type { ChatMessage, ContentPart, ToolDefinition } from './chat-types.ts';

/**
 * Rough token counts. The gateway fronts hundreds of models with different tokenizers, so parley
 * estimates (about 4 characters a token, rounded up, plus a per-message overhead) and keeps a margin,
 * instead of shipping one tokenizer that would be wrong for most models anyway. The context budget
 * fits history with it, and every gateway call's budget hold is sized with it.
 */
const charactersPerToken = 4;
const tokensPerMessage = 4;
/** What one attached image costs a vision model, at the high end of common models. */
export const tokensPerImage = 1_000;

export function estimateTokens(message: ChatMessage): number {
  const calls = message.toolCalls ?? [];
  const callTokens = calls.reduce(
    (total, call) => total + Math.ceil((call.name.length + call.arguments.length) / charactersPerToken),
    0,
  );
  if (typeof message.content === 'string')
    return tokensPerMessage + callTokens + Math.ceil(message.content.length / charactersPerToken);
  return message.content.reduce(
    (total, part: ContentPart) =>
      total + (part.type === 'text' ? Math.ceil(part.text.length / charactersPerToken) : tokensPerImage),
    tokensPerMessage + callTokens,
  );
}

/** The whole prompt of a request: its messages and the definitions of the tools it offers. */
export function estimatePromptTokens({
  messages,
  tools = [],
}: {
  messages: readonly ChatMessage[];
  tools?: readonly ToolDefinition[] | undefined;
}): number {
  const toolTokens = tools.reduce(
    (total, tool) =>
      total +
      Math.ceil(
        (tool.name.length + tool.description.length + JSON.stringify(tool.parameters).length) /
          charactersPerToken,
      ),
    0,
  );
  return messages.reduce((total, message) => total + estimateTokens(message), toolTokens);
}

/** The tokens of what a model wrote, when the gateway did not say (a stream that broke off). */
export function estimateCompletionTokens(characterCount: number): number {
  return Math.ceil(characterCount / charactersPerToken);
}
