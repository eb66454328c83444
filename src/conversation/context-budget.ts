import type { ChatMessage } from '../gateway/chat-types.ts';
import { estimateTokens, tokensPerImage } from '../gateway/token-estimate.ts';

export { estimateTokens, tokensPerImage };

import type { StoredTurn } from './turn.ts';

/** Share of the context kept free because the estimate can be low. */
const safetyMargin = 0.1;

/** Tokens a request's prompt may take: the context less the safety margin and the reply. */
export function promptBudgetTokens({
  contextTokens,
  replyMaxTokens,
}: {
  contextTokens: number;
  replyMaxTokens: number;
}): number {
  return Math.floor(contextTokens * (1 - safetyMargin)) - replyMaxTokens;
}

export interface ContextFit {
  readonly messages: ChatMessage[];
  /** How many of the oldest stored turns did not fit and were left out. */
  readonly droppedTurnCount: number;
  /** The new turn alone does not fit: the caller must refuse it rather than send it. */
  readonly isNewTurnTooLarge: boolean;
  readonly estimatedPromptTokens: number;
}

/**
 * System prompt + as much recent history as fits + the new turn, leaving `replyMaxTokens` for the
 * answer. Turns are dropped oldest first, a user turn together with the reply that followed it.
 */
export function fitToContext(options: {
  systemPrompt: string;
  history: readonly StoredTurn[];
  newTurn: ChatMessage;
  contextTokens: number;
  replyMaxTokens: number;
}): ContextFit {
  const system: ChatMessage = { role: 'system', content: options.systemPrompt };
  const budget = promptBudgetTokens(options);
  const fixedTokens = estimateTokens(system) + estimateTokens(options.newTurn);
  if (fixedTokens > budget) {
    return {
      messages: [system, options.newTurn],
      droppedTurnCount: options.history.length,
      isNewTurnTooLarge: true,
      estimatedPromptTokens: fixedTokens,
    };
  }
  let usedTokens = fixedTokens;
  const kept: ChatMessage[] = [];
  let keptTurnCount = 0;
  for (let index = options.history.length - 1; index >= 0; index -= 1) {
    const turn = options.history[index];
    if (!turn) continue;
    const message = toChatMessage(turn);
    const tokens = estimateTokens(message);
    if (usedTokens + tokens > budget) break;
    usedTokens += tokens;
    kept.unshift(message);
    keptTurnCount += 1;
  }
  // A history that starts with an orphaned assistant reply reads as if the bot spoke first; drop it.
  if (kept[0]?.role === 'assistant') {
    usedTokens -= estimateTokens(kept[0]);
    kept.shift();
    keptTurnCount -= 1;
  }
  return {
    messages: [system, ...kept, options.newTurn],
    droppedTurnCount: options.history.length - keptTurnCount,
    isNewTurnTooLarge: false,
    estimatedPromptTokens: usedTokens,
  };
}

/** A stored turn as the model sees it: user turns carry their author's name, images a placeholder. */
export function toChatMessage(turn: StoredTurn): ChatMessage {
  // A reply that broke off says so, so the model does not take it for a finished answer.
  if (turn.role === 'assistant')
    return {
      role: 'assistant',
      content: turn.isInterrupted ? `${turn.text}\n[reply cut off here]` : turn.text,
    };
  const imageNotes = turn.images.map((image) => `[image: ${image.name}]`);
  const documentNotes = (turn.documents ?? []).map(
    (document) => `[document: ${document.name} (${document.description})]`,
  );
  return {
    role: 'user',
    content: [`${turn.authorName}: ${turn.text}`, ...imageNotes, ...documentNotes].join('\n'),
  };
}
