import type { CommandResponder, CommandResult } from '../../commands/define-command.ts';
import type { Action } from '../../src/delivery/card.ts';
import { renderCardAsText } from '../../src/delivery/card.ts';
import { type ConsoleSurface, createConsoleSurface } from './console-surface.ts';
import type { MarkdownTerminal } from './markdown-printer.ts';

/**
 * A command's answers in the terminal: progress on one line that rewrites itself (a person is
 * watching) or is printed once (piped), cards as text, files saved under the output folder, and
 * buttons listed for /press. With `markdown` answers and replies are printed rendered.
 */
export function createConsoleResponder({
  write,
  outputDirectory,
  isInteractive,
  onActions,
  markdown,
}: {
  write: (text: string) => void;
  outputDirectory: string;
  isInteractive: boolean;
  onActions: (actions: readonly Action[]) => void;
  markdown?: Omit<MarkdownTerminal, 'write'>;
}): CommandResponder & { surface: ConsoleSurface } {
  const surface = createConsoleSurface({
    write,
    outputDirectory,
    onActions,
    isInteractive,
    ...(markdown ? { markdown } : {}),
  });
  const rendered = (text: string) => (markdown ? markdown.render(text).replace(/\n+$/, '') : text);
  let isProgressShown = false;
  const endProgress = () => {
    if (isProgressShown) write(isInteractive ? '\r\x1b[K' : '');
    isProgressShown = false;
  };
  const send = async (result: CommandResult) => {
    endProgress();
    const text = [result.text, result.card ? renderCardAsText(result.card) : undefined]
      .filter(Boolean)
      .join('\n\n');
    if (result.files && result.files.length > 0) await surface.upload(result.files, text);
    else if (text !== '') write(rendered(text));
    write('\n');
    // A private answer (an error, a refused button press) is an aside: the buttons of the last
    // answer stay pressable, as they stay on Discord and Slack under an ephemeral reply.
    if (!result.isPrivate || result.actions !== undefined) onActions(result.actions ?? []);
  };
  return {
    surface,
    async progress(text) {
      if (isInteractive) write(`\r\x1b[K${text}`);
      else if (!isProgressShown) write(`${text}\n`);
      isProgressShown = true;
      // The terminal's line is gone with the process: nothing to journal.
      return undefined;
    },
    send,
    // The terminal is its owner's alone: a private file is saved in the output folder like any other.
    sendDirect: (result) => send({ ...result, isPrivate: true }),
  };
}
