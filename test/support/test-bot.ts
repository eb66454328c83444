import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadParleyConfig, type ParleyConfig } from '../../bin/platform-adapters.ts';
import { createCommandServices } from '../../commands/command-services.ts';
import { type App, createApp } from '../../src/app.ts';
import type { Logger } from '../../src/log.ts';
import { createCapturedLogger } from './capture-logger.ts';

/** What the test models can do, as parley's catalog says; some differ from the fake gateway on purpose. */
export const testCatalog = {
  defaults: { contextTokens: 32_000 },
  models: {
    // Prices in cost units: a million tokens in, a million out; one image.
    'chat-model': {
      vision: false,
      jsonSchema: true,
      price: { inputPerMillionTokens: 1, outputPerMillionTokens: 2 },
    },
    // A small window, so a long conversation outgrows it within a test.
    'small-context-model': {
      vision: false,
      jsonSchema: true,
      contextTokens: 2_000,
      price: { inputPerMillionTokens: 1, outputPerMillionTokens: 2 },
    },
    'cheap-model': {
      vision: false,
      jsonSchema: true,
      price: { inputPerMillionTokens: 0.1, outputPerMillionTokens: 0.2 },
    },
    'vision-model': { vision: true, jsonSchema: true },
    'no-schema-model': { vision: false, jsonSchema: false },
    // Function calling: one that has it, and one the catalog believes has it but the gateway refuses.
    'tools-model': {
      vision: false,
      jsonSchema: true,
      tools: true,
      price: { inputPerMillionTokens: 1, outputPerMillionTokens: 2 },
    },
    'believed-tools-model': { vision: false, jsonSchema: true, tools: true },
    'image-model': {
      imageInput: true,
      imageUrlOutput: false,
      aspectRatio: true,
      price: { perImage: 0.04 },
    },
    'url-image-model': { imageInput: true, imageUrlOutput: true, aspectRatio: true },
    // A gateway that takes data: URIs in image_input too (the reference promises only links).
    'data-uri-image-model': { imageInput: true, imageInputDataUri: true, imageUrlOutput: false },
    'plain-image-model': { imageInput: false, imageUrlOutput: false, aspectRatio: false },
  },
};

export interface TestBot {
  readonly config: ParleyConfig;
  readonly app: App;
  readonly services: ReturnType<typeof createCommandServices>;
  readonly logger: Logger;
  readonly logOutput: () => string;
  readonly workDirectory: string;
  close(): Promise<void>;
}

/**
 * The bot's core as `npm start` builds it (config from an environment, app, command services), with
 * the test catalog, a memory store and a logger whose lines a test can read; the platform variables
 * come from the caller.
 */
export function buildTestBot({
  gatewayBaseUrl,
  gatewayApiKey,
  environment = {},
}: {
  gatewayBaseUrl: string;
  gatewayApiKey: string;
  environment?: Record<string, string>;
}): TestBot {
  const workDirectory = mkdtempSync(join(tmpdir(), 'parley-test-bot-'));
  const catalogPath = join(workDirectory, 'models.json');
  writeFileSync(catalogPath, JSON.stringify(testCatalog));
  const config = loadParleyConfig({
    environment: {
      GATEWAY_BASE_URL: gatewayBaseUrl,
      GATEWAY_API_KEY: gatewayApiKey,
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
  // As bin/parley.ts does: with an OTLP endpoint configured, log lines carry their span's ids.
  const { logger, output } = createCapturedLogger(config.secrets, { isTraced: config.tracing !== undefined });
  const app = createApp({ config, logger });
  const services = createCommandServices({ app });
  return {
    config,
    app,
    services,
    logger,
    logOutput: output,
    workDirectory,
    async close() {
      await services.close();
      await app.close();
    },
  };
}
