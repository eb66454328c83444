import { z } from 'zod';
import { resolveFromProjectRoot } from '../../src/config.ts';
import { defineEnvironmentFragment } from '../../src/environment/environment-fragment.ts';
import { document, section, text } from '../../src/environment/setting-schemas.ts';

const consoleVariables = z.object(
  section('Terminal chat', {
    IMAGE_OUTPUT_DIR: document(text('out'), {
      description:
        'Folder the terminal chat saves /imagine results and files to. A relative path starts at the project folder.',
      typeText: 'path',
    }),
    INIT_CWD: document(z.string().optional(), {
      description:
        'Set by npm (or scripts/start.sh), not by you: the folder `npm start` was run from. Paths typed in the terminal chat (/image, /file) start there; without it, at the current folder.',
      typeText: 'path',
    }),
  }),
);

/** What the terminal chat runs with. */
export interface ConsoleSettings {
  /** Where drawn images and files are saved, absolute. */
  readonly outputDirectory: string;
  /** Where typed paths start: where the person ran `npm start`. */
  readonly workingDirectory: string;
}

/** The terminal chat's variables; it runs when no platform is configured, so it always has settings. */
export const consoleConfig = defineEnvironmentFragment({
  schema: consoleVariables,
  isService: false,
  settingsOf: (values): ConsoleSettings => ({
    outputDirectory: resolveFromProjectRoot(values.IMAGE_OUTPUT_DIR),
    workingDirectory: values.INIT_CWD || process.cwd(),
  }),
  secretsOf: () => [],
});
