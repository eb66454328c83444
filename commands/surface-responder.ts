import { renderCardAsText } from '../src/delivery/card.ts';
import type { PostedMessage, Surface } from '../src/delivery/surface.ts';
import { splitCommandResult } from './answer-pieces.ts';
import type { CommandResponder, CommandResult } from './define-command.ts';

/**
 * A responder that answers through a surface alone: for a scheduled run, which has no interaction to
 * answer. Cards become text (the platform's surface renders the Markdown), files go through the
 * surface's upload where it has one, and a private answer is posted like any other: nobody waits
 * for it privately, and the place is where the schedule's owner asked for its answers.
 */
export function createSurfaceResponder(surface: Surface): CommandResponder {
  let progressLine: PostedMessage | undefined;
  return {
    surface,
    async progress(text) {
      if (progressLine === undefined) progressLine = await surface.post(text);
      else await surface.edit(progressLine, text);
      return progressLine;
    },
    async send(result: CommandResult) {
      const asText: CommandResult = {
        ...result,
        ...(result.card === undefined
          ? {}
          : { text: [result.text, renderCardAsText(result.card)].filter(Boolean).join('\n\n') }),
      };
      delete (asText as { card?: unknown }).card;
      const pieces = splitCommandResult({ result: asText, maxLength: surface.limits.maxMessageLength });
      for (const [index, piece] of pieces.entries()) {
        const isLast = index === pieces.length - 1;
        const text = piece.text ?? '';
        if (isLast && piece.files !== undefined && piece.files.length > 0 && surface.upload) {
          await surface.upload(piece.files, text);
          continue;
        }
        if (text === '') continue;
        const options = isLast && piece.actions !== undefined ? { actions: piece.actions } : undefined;
        if (index === 0 && progressLine !== undefined) {
          await surface.edit(progressLine, text, options);
          progressLine = undefined;
        } else {
          await surface.post(text, options);
        }
      }
    },
  };
}
