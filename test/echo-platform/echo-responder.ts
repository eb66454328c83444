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
  return {
    surface,
    async progress(text) {
      return surface.post(text);
    },
    async send(result) {
      const text = [result.text, result.card ? renderCardAsText(result.card) : undefined]
        .filter(Boolean)
        .join('\n\n');
      const files = (result.files ?? []).map((file) => `[file ${file.name}]`);
      room.bot.post(channel, {
        text: [text, ...files].filter(Boolean).join('\n'),
        actions: result.actions ?? [],
        isPrivate: result.isPrivate === true,
      });
    },
  };
}
