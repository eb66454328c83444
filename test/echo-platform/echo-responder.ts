import { splitCommandResult } from '../../commands/answer-pieces.ts';
import type { CommandResponder } from '../../commands/define-command.ts';
import { renderCardAsText } from '../../src/delivery/card.ts';
import { type EchoRoom, echoMessageLength } from './echo-room.ts';
import { createEchoSurface } from './echo-surface.ts';

/** Where a command or a button press answers in the echo room. */
export function createEchoResponder({
  room,
  channel,
}: {
  room: EchoRoom;
  channel: string;
}): CommandResponder {
  const surface = createEchoSurface({ room, channel });
  // The progress line is one message, rewritten as it changes and replaced by the public answer.
  let progressId: string | undefined;
  return {
    surface,
    async progress(text) {
      if (progressId !== undefined) room.bot.edit(progressId, { text });
      else progressId = room.bot.post(channel, { text, actions: [], isPrivate: false });
      return { id: progressId };
    },
    async send(result) {
      // A long answer goes as several messages; the card and files go with the last, whose text
      // leaves them room within the room's limit.
      const card = result.card ? renderCardAsText(result.card) : undefined;
      const files = (result.files ?? []).map((file) => `[file ${file.name}]`);
      const lastExtras = [card ?? '', ...files].join('\n\n');
      const pieces = splitCommandResult({ result, maxLength: echoMessageLength - lastExtras.length });
      for (const [index, piece] of pieces.entries()) {
        const isLast = index === pieces.length - 1;
        const text = [piece.text, isLast ? card : undefined].filter(Boolean).join('\n\n');
        const shown = [text, ...(isLast ? files : [])].filter(Boolean).join('\n');
        const answer = { text: shown, actions: piece.actions ?? [] };
        if (progressId !== undefined && piece.isPrivate !== true) {
          room.bot.edit(progressId, answer);
          progressId = undefined;
          continue;
        }
        room.bot.post(channel, { ...answer, isPrivate: piece.isPrivate === true });
      }
    },
  };
}
