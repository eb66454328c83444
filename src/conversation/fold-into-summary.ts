import type { Gateway } from '../gateway/gateway-client.ts';
import type { SpendHold } from '../spending/spend-hold.ts';
import { toChatMessage } from './context-budget.ts';
import type { StoredTurn } from './turn.ts';

/** Words the summary may run to; it is cut at `maxCharacters` whatever the model writes. */
const summaryWords = 250;

/**
 * One model call that folds the oldest turns into the running summary: names, facts, numbers,
 * decisions and open questions kept, in the language the conversation is in, within a bounded size.
 * The turns are quoted as a transcript inside one user message, never replayed as turns, so the
 * model summarises rather than answers them.
 */
export async function foldIntoSummary({
  gateway,
  hold,
  model,
  previous,
  turns,
  maxCharacters,
  signal,
}: {
  gateway: Gateway;
  hold: SpendHold;
  model: string;
  previous: string | undefined;
  turns: readonly StoredTurn[];
  maxCharacters: number;
  signal?: AbortSignal;
}): Promise<string> {
  const transcript = turns
    .map((turn) => {
      const message = toChatMessage(turn);
      const text = typeof message.content === 'string' ? message.content : '';
      return turn.role === 'assistant' ? `parley: ${text}` : text;
    })
    .join('\n');
  const reply = await gateway.chat({
    model,
    hold,
    maxTokens: Math.ceil(maxCharacters / 3),
    ...(signal ? { signal } : {}),
    messages: [
      {
        role: 'system',
        content: `You keep the running summary of a group chat with an assistant called parley. Update the summary with the new part of the transcript. Keep who said what, names, facts, numbers, dates, decisions and open questions; drop small talk. Write it in the language the conversation is in, in at most ${summaryWords} words, as plain sentences. Reply with the summary only.`,
      },
      {
        role: 'user',
        content: `${previous ? `The summary so far:\n${previous}\n\n` : ''}The new part of the transcript:\n${transcript}`,
      },
    ],
  });
  return reply.text.trim().slice(0, maxCharacters);
}
