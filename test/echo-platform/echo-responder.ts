import type { CommandResponder } from '../../commands/define-command.ts';
import { renderCardAsText } from '../../src/delivery/card.ts';
import type { EchoRoom } from './echo-room.ts';
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
      const text = [result.text, result.card ? renderCardAsText(result.card) : undefined]
        .filter(Boolean)
        .join('\n\n');
      const files = (result.files ?? []).map((file) => `[file ${file.name}]`);
      const answer = { text: [text, ...files].filter(Boolean).join('\n'), actions: result.actions ?? [] };
      if (progressId !== undefined && result.isPrivate !== true) {
        room.bot.edit(progressId, answer);
        progressId = undefined;
        return;
      }
      room.bot.post(channel, { ...answer, isPrivate: result.isPrivate === true });
    },
  };
}
