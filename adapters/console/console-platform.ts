import { userInfo } from 'node:os';
import type { PlatformAdapter } from '../../commands/platform-adapter.ts';
import { type ConsoleSettings, consoleConfig } from './console-config.ts';

/**
 * The terminal chat on this process's standard input and output, as bin/parley.ts starts it when no
 * other platform is configured. It ends when the input does (or on /exit).
 */
export const consolePlatform: PlatformAdapter<ConsoleSettings> = {
  name: 'console',
  configSchema: consoleConfig,
  async start({ services, settings }) {
    const isInteractive = process.stdin.isTTY === true && process.stdout.isTTY === true;
    const input = process.stdin;
    // Loaded only for the terminal chat, like the other platforms.
    const { runConsoleAdapter } = await import('./console-adapter.ts');
    const ended = runConsoleAdapter({
      services,
      input,
      output: process.stdout,
      userName: userInfo().username,
      outputDirectory: settings.outputDirectory,
      isInteractive,
      // npm runs `npm start` in the project folder and says in INIT_CWD where the person was.
      workingDirectory: settings.workingDirectory,
    });
    return {
      ended,
      async stop() {
        input.destroy();
        await ended;
      },
    };
  },
};
