import type { Usage } from './behaviour.ts';
import { imageCountOf, textOf } from './message-text.ts';
import type { ChatRequest } from './request-schemas.ts';

// A rough tokenizer stand-in: about four characters a token, and a flat cost per image as vision
// models charge. Good enough for a bot that records and sums usage.
const charactersPerToken = 4;
const tokensPerImage = 85;

/** The `usage` of a reply: estimated from the request and the reply texts, then the test's override. */
export function usageFor(options: {
  request: ChatRequest;
  replyTexts: readonly string[];
  override: Partial<Usage> | undefined;
}): Usage {
  const promptTokens = options.request.messages.reduce(
    (sum, message) => sum + tokensOf(textOf(message)) + imageCountOf(message) * tokensPerImage,
    0,
  );
  const completionTokens = options.replyTexts.reduce((sum, text) => sum + tokensOf(text), 0);
  const usage = {
    prompt_tokens: options.override?.prompt_tokens ?? promptTokens,
    completion_tokens: options.override?.completion_tokens ?? completionTokens,
  };
  return {
    ...usage,
    total_tokens: options.override?.total_tokens ?? usage.prompt_tokens + usage.completion_tokens,
  };
}

function tokensOf(text: string): number {
  return Math.ceil(text.length / charactersPerToken);
}
