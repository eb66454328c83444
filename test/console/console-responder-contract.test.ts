import { createConsoleResponder } from '../../adapters/console/console-responder.ts';
import type { Action } from '../../src/delivery/card.ts';
import { describeResponderContract } from '../support/responder-contract.ts';

/** What a terminal shows after `written`: `\r` and erase-line take back the line being drawn. */
function screenOf(written: string): string {
  const lines: string[] = [''];
  for (const part of written.split(/(\r\x1b\[K|\n)/)) {
    if (part === '\r\x1b[K') lines[lines.length - 1] = '';
    else if (part === '\n') lines.push('');
    else lines[lines.length - 1] += part;
  }
  return lines.join('\n');
}

// The terminal is one person's: what it prints is theirs alone, public and private answers alike.
describeResponderContract({
  name: 'console',
  async open() {
    let written = '';
    let buttons: readonly Action[] = [];
    const responder = createConsoleResponder({
      write: (text) => {
        written += text;
      },
      outputDirectory: 'unused',
      isInteractive: true,
      onActions: (actions) => {
        buttons = actions;
      },
    });
    const screen = () => ({ text: screenOf(written), buttons: buttons.map((action) => action.label) });
    return {
      responder,
      isOnePersonsPlace: true,
      shown: async () => [screen()],
      shownPrivately: async () => [screen().text],
    };
  },
});
