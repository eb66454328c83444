import { createConsoleSurface } from '../../adapters/console/console-surface.ts';
import type { Action } from '../../src/delivery/card.ts';
import { describeSurfaceContract } from '../support/surface-contract.ts';

// The terminal prints one reply as one growing text; its buttons are listed after it for /press.
describeSurfaceContract({
  name: 'console',
  async open() {
    let screen = '';
    let buttons: readonly Action[] = [];
    const surface = createConsoleSurface({
      write: (text) => {
        screen += text;
      },
      outputDirectory: 'unused',
      onActions: (actions) => {
        buttons = actions;
      },
    });
    return {
      surface,
      shown: async () => {
        surface.flush();
        return [{ text: screen, buttons: buttons.map((action) => action.label) }];
      },
    };
  },
});
