import { createConsoleResponder } from '../../adapters/console/console-responder.ts';
import type { Action } from '../../src/delivery/card.ts';
import { describeResponderContract } from '../support/responder-contract.ts';

/** The terminal's erase: back to the start of the line, then clear it (an interactive progress line). */
const eraseLine = '\r\u001b[K';

/** What a terminal shows after `written`: an erase takes back the line being drawn. */
function screenOf(written: string): string {
  return written
    .split('\n')
    .map((line) => line.split(eraseLine).at(-1) ?? '')
    .join('\n');
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
