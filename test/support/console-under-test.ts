import { PassThrough } from 'node:stream';
import { runConsoleAdapter } from '../../adapters/console/console-adapter.ts';
import type { CommandServices } from '../../commands/define-command.ts';
import type { App } from '../../src/app.ts';
import { type FakeGateway, startFakeGateway } from '../fakes/gateway/index.ts';
import { buildTestBot } from './test-bot.ts';

export interface ConsoleUnderTest {
  readonly fake: FakeGateway;
  readonly app: App;
  readonly services: CommandServices;
  readonly workDirectory: string;
  readonly outputDirectory: string;
  readonly logOutput: () => string;
  /** Types the lines into a fresh terminal session (piped, like `printf … | npm start`) and returns what it printed. */
  type(...lines: string[]): Promise<string>;
  close(): Promise<void>;
}

const apiKey = 'console-commands-key-0123456789';

/**
 * The whole bot as `npm start` builds it (config, app, command services, console adapter) in this
 * process, against the fake gateway, with a memory store and a model catalog made for the tests.
 */
export async function startConsoleUnderTest(
  environment: Record<string, string> = {},
): Promise<ConsoleUnderTest> {
  const fake = await startFakeGateway({
    apiKey,
    models: {
      'chat-model': { vision: false },
      'no-schema-model': { jsonSchema: false, vision: false },
      'plain-image-model': { imageUrlOutput: false, imageInput: false },
      'data-uri-image-model': { imageInputDataUri: true },
      'believed-tools-model': { tools: false },
    },
  });
  const bot = buildTestBot({ gatewayBaseUrl: fake.baseUrl, gatewayApiKey: apiKey, environment });
  const { config, app, services, workDirectory } = bot;
  if (config.platforms.console === undefined) throw new Error('the test config has no terminal section');
  const { outputDirectory } = config.platforms.console;
  return {
    fake,
    app,
    services,
    workDirectory,
    outputDirectory,
    logOutput: bot.logOutput,
    async type(...lines) {
      const input = new PassThrough();
      const printed = new PassThrough();
      let text = '';
      printed.on('data', (chunk) => {
        text += String(chunk);
      });
      input.end(`${lines.join('\n')}\n`);
      await runConsoleAdapter({
        services,
        input,
        output: printed,
        userName: 'ada',
        outputDirectory,
        isInteractive: false,
        workingDirectory: process.cwd(),
      });
      return text;
    },
    async close() {
      await bot.close();
      await fake.close();
    },
  };
}
