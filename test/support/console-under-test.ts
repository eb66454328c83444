import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { runConsoleAdapter } from '../../adapters/console/console-adapter.ts';
import { createCommandServices } from '../../commands/command-services.ts';
import type { CommandServices } from '../../commands/define-command.ts';
import { type App, createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { type FakeGateway, startFakeGateway } from '../fakes/gateway/index.ts';
import { createCapturedLogger } from './capture-logger.ts';

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
    },
  });
  const workDirectory = mkdtempSync(join(tmpdir(), 'parley-commands-'));
  const catalogPath = join(workDirectory, 'models.json');
  writeFileSync(
    catalogPath,
    JSON.stringify({
      defaults: { contextTokens: 32_000 },
      models: {
        'chat-model': { vision: false, jsonSchema: true },
        'vision-model': { vision: true, jsonSchema: true },
        'no-schema-model': { vision: false, jsonSchema: false },
        'image-model': { imageInput: true, imageUrlOutput: false, aspectRatio: true },
        'url-image-model': { imageInput: true, imageUrlOutput: true, aspectRatio: true },
        'plain-image-model': { imageInput: false, imageUrlOutput: false, aspectRatio: false },
      },
    }),
  );
  const config = loadConfig({
    environment: {
      GATEWAY_BASE_URL: fake.baseUrl,
      GATEWAY_API_KEY: apiKey,
      CHAT_MODEL: 'chat-model',
      VISION_MODEL: 'vision-model',
      STRUCTURED_MODEL: 'chat-model',
      IMAGE_MODEL: 'image-model',
      MODEL_CAPABILITIES_FILE: catalogPath,
      STORE_URL: 'memory://',
      IMAGE_OUTPUT_DIR: join(workDirectory, 'out'),
      GATEWAY_MAX_RETRIES: '0',
      ...environment,
    },
    envFilePath: join(workDirectory, 'no.env'),
  });
  const { logger, output } = createCapturedLogger(config.secrets);
  const app = createApp({ config, logger });
  const services = createCommandServices({ app });
  return {
    fake,
    app,
    services,
    workDirectory,
    outputDirectory: config.images.outputDirectory,
    logOutput: output,
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
        outputDirectory: config.images.outputDirectory,
        isInteractive: false,
      });
      return text;
    },
    async close() {
      await services.close();
      await app.close();
      await fake.close();
    },
  };
}
