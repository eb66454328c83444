import { PassThrough } from 'node:stream';
import { runConsoleAdapter } from '../../adapters/console/console-adapter.ts';
import type { CommandServices } from '../../commands/define-command.ts';
import type { App } from '../../src/app.ts';
import { type FakeGateway, startFakeGateway } from '../fakes/gateway/index.ts';
import { createManualScheduling, type ManualScheduling } from './manual-scheduling.ts';
import { buildTestBot } from './test-bot.ts';

export interface ConsoleUnderTest {
  readonly fake: FakeGateway;
  readonly app: App;
  readonly services: CommandServices;
  readonly workDirectory: string;
  readonly outputDirectory: string;
  readonly logOutput: () => string;
  /** Schedules on a clock the test moves, when asked for (`scheduleClockStartMs`). */
  readonly scheduling: ManualScheduling | undefined;
  /** Types the lines into a fresh terminal session (piped, like `printf … | npm start`) and returns what it printed. */
  type(...lines: string[]): Promise<string>;
  /** A terminal session kept open: lines typed one by one, what it printed read as it grows. */
  openSession(): ConsoleSession;
  close(): Promise<void>;
}

export interface ConsoleSession {
  typeLine(line: string): void;
  printed(): string;
  /** Ends the input and waits for the session to finish. */
  end(): Promise<void>;
}

const apiKey = 'console-commands-key-0123456789';

/**
 * The whole bot as `npm start` builds it (config, app, command services, console adapter) in this
 * process, against the fake gateway, with a memory store and a model catalog made for the tests.
 */
export async function startConsoleUnderTest(
  environment: Record<string, string> = {},
  {
    scheduleClockStartMs,
  }: {
    /** Runs schedules on a manual clock starting here (`bot.scheduling.clock`). */
    scheduleClockStartMs?: number;
  } = {},
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
  const { config, app, workDirectory } = bot;
  if (config.platforms.console === undefined) throw new Error('the test config has no terminal section');
  const { outputDirectory } = config.platforms.console;
  const scheduling =
    scheduleClockStartMs === undefined
      ? undefined
      : createManualScheduling({ app, config, services: bot.services, startMs: scheduleClockStartMs });
  const services = scheduling?.services ?? bot.services;
  await scheduling?.start();
  const session = (input: PassThrough) => {
    const printed = new PassThrough();
    let text = '';
    printed.on('data', (chunk) => {
      text += String(chunk);
    });
    const running = runConsoleAdapter({
      services,
      input,
      output: printed,
      userName: 'ada',
      outputDirectory,
      isInteractive: false,
      workingDirectory: process.cwd(),
    });
    return { running, printed: () => text };
  };
  return {
    fake,
    app,
    services,
    workDirectory,
    outputDirectory,
    logOutput: bot.logOutput,
    scheduling,
    async type(...lines) {
      const input = new PassThrough();
      input.end(`${lines.join('\n')}\n`);
      const { running, printed } = session(input);
      await running;
      return printed();
    },
    openSession() {
      const input = new PassThrough();
      const { running, printed } = session(input);
      return {
        typeLine: (line) => input.write(`${line}\n`),
        printed,
        async end() {
          input.end();
          await running;
        },
      };
    },
    async close() {
      await scheduling?.stop();
      await bot.close();
      await fake.close();
    },
  };
}
