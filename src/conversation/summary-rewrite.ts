import type { Gateway } from '../gateway/gateway-client.ts';
import type { SpendHold } from '../spending/spend-hold.ts';

/**
 * One model call that rewrites a conversation's running summary without one person: what they said,
 * asked or shared, and what it told about them, goes; what everyone else said stays. `/forget` uses
 * it on a summary several people's turns were folded into.
 */
export async function rewriteSummaryWithout({
  gateway,
  hold,
  model,
  summary,
  names,
  maxCharacters,
}: {
  gateway: Gateway;
  hold: SpendHold;
  model: string;
  summary: string;
  /** The names the person went by in the conversation (the summary retells them by name). */
  names: readonly string[];
  maxCharacters: number;
}): Promise<string> {
  const who = names.map((name) => `"${name}"`).join(' or ');
  const reply = await gateway.chat({
    model,
    hold,
    maxTokens: Math.ceil(maxCharacters / 3),
    messages: [
      {
        role: 'system',
        content: `You keep the running summary of a group chat with an assistant called parley. The person called ${who} asked to be forgotten. Rewrite the summary so that it keeps everything the others said (who said what, names, facts, numbers, dates, decisions and open questions) and holds nothing that person said, asked or shared, nothing about them, and not their name; drop what parley answered only to them. Keep the language the summary is in. If nothing is left, reply with an empty message. Reply with the summary only.`,
      },
      { role: 'user', content: `The summary:\n${summary}` },
    ],
  });
  return reply.text.trim().slice(0, maxCharacters);
}
