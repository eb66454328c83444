import { splitMessage } from '../src/delivery/split-message.ts';
import type { CommandResult } from './define-command.ts';

/**
 * A command's result as the messages that carry it where one message holds at most `maxLength`
 * characters of text: the text cut by the reply splitter (code blocks closed and reopened across a
 * cut), each piece but the last a text-only result, and the last with the card, files and buttons,
 * since buttons act on the whole answer. Every piece keeps the result's privacy. A result whose text
 * fits, or with no text, is one piece, unchanged. A responder sends the pieces in order, the first
 * where a single answer would go (in place of the progress line), the rest after it.
 */
export function splitCommandResult({
  result,
  maxLength,
}: {
  result: CommandResult;
  /** The platform's limit for the text of one message; undefined where nothing limits it. */
  maxLength: number | undefined;
}): CommandResult[] {
  const text = result.text ?? '';
  if (maxLength === undefined || text.length <= maxLength) return [result];
  const pieces = splitMessage({ text, maxLength });
  const last = pieces.at(-1);
  if (last === undefined) return [result];
  const privacy = result.isPrivate === undefined ? {} : { isPrivate: result.isPrivate };
  return [
    ...pieces.slice(0, -1).map((piece) => ({ text: piece.text, ...privacy })),
    { ...result, text: last.text },
  ];
}
