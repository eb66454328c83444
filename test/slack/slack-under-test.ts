import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type SlackAdapter, startSlackAdapter } from '../../adapters/slack/slack-adapter.ts';
import { createCommandServices } from '../../commands/command-services.ts';
import type { CommandServices } from '../../commands/define-command.ts';
import { type App, createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { type FakeGateway, startFakeGateway } from '../fakes/gateway/index.ts';
import {
  type FakeSlack,
  type FakeSlackOptions,
  type InteractionPayload,
  type SlackEvent,
  type SlashCommandPayload,
  startFakeSlack,
} from '../fakes/slack/index.ts';
import { createCapturedLogger } from '../support/capture-logger.ts';

export type SlackMode = 'http' | 'socket';

/** The whole bot as `npm start` would run it on Slack, against the fake Slack and the fake gateway. */
export interface SlackUnderTest {
  readonly mode: SlackMode;
  readonly slack: FakeSlack;
  readonly gateway: FakeGateway;
  readonly app: App;
  readonly services: CommandServices;
  readonly adapter: SlackAdapter;
  readonly logOutput: () => string;
  /** Delivers an event in this mode; extra options (retries, forged signatures) go to the fake. */
  deliverEvent(event: SlackEvent, options?: Record<string, unknown>): Promise<{ status?: number }>;
  deliverCommand(command: SlashCommandPayload): Promise<unknown>;
  deliverInteraction(payload: InteractionPayload): Promise<unknown>;
  /** Forgets what both fakes recorded, between tests. */
  reset(): void;
  close(): Promise<void>;
}

const apiKey = 'slack-e2e-gateway-key-0123456789';

/**
 * Starts the fakes, builds config, core app and command services the way the process entry does,
 * and starts the real Slack adapter (a real Bolt app) in the given mode.
 */
export async function startSlackUnderTest({
  mode,
  slackOptions = {},
  environment = {},
  stopButtonDelayMs = 2_500,
}: {
  mode: SlackMode;
  slackOptions?: FakeSlackOptions;
  environment?: Record<string, string>;
  stopButtonDelayMs?: number;
}): Promise<SlackUnderTest> {
  const gateway = await startFakeGateway({ apiKey, models: { 'chat-model': { vision: false } } });
  const slack = await startFakeSlack(slackOptions);
  const workDirectory = mkdtempSync(join(tmpdir(), 'parley-slack-'));
  const catalogPath = join(workDirectory, 'models.json');
  writeFileSync(
    catalogPath,
    JSON.stringify({
      defaults: { contextTokens: 32_000 },
      models: {
        'chat-model': { vision: false, jsonSchema: true },
        'vision-model': { vision: true, jsonSchema: true },
        'image-model': { imageInput: true, imageUrlOutput: false, aspectRatio: true },
      },
    }),
  );
  const config = loadConfig({
    environment: {
      GATEWAY_BASE_URL: gateway.baseUrl,
      GATEWAY_API_KEY: apiKey,
      CHAT_MODEL: 'chat-model',
      VISION_MODEL: 'vision-model',
      STRUCTURED_MODEL: 'chat-model',
      IMAGE_MODEL: 'image-model',
      MODEL_CAPABILITIES_FILE: catalogPath,
      STORE_URL: 'memory://',
      GATEWAY_MAX_RETRIES: '0',
      SLACK_BOT_TOKEN: slack.botToken,
      SLACK_SIGNING_SECRET: slack.signingSecret,
      SLACK_API_URL: slack.apiUrl,
      PORT: '0',
      ...(mode === 'socket' ? { SLACK_APP_TOKEN: slack.appToken } : {}),
      ...environment,
    },
    envFilePath: join(workDirectory, 'no.env'),
  });
  if (config.slack === undefined) throw new Error('the test config has no Slack section');
  const { logger, output } = createCapturedLogger(config.secrets);
  const app = createApp({ config, logger });
  const services = createCommandServices({ app });
  const adapter = await startSlackAdapter({
    services,
    slack: config.slack,
    logger,
    maxImageBytes: config.images.maxInputBytes,
    host: '127.0.0.1',
    stopButtonDelayMs,
  });
  if (adapter.port !== undefined) slack.appUrl = `http://127.0.0.1:${adapter.port}/slack/events`;
  const target = mode === 'socket' ? { mode: 'socket' as const } : {};

  return {
    mode,
    slack,
    gateway,
    app,
    services,
    adapter,
    logOutput: output,
    deliverEvent: (event, options = {}) =>
      slack.deliverEvent({ event, ...target, ...options } as Parameters<FakeSlack['deliverEvent']>[0]),
    deliverCommand: (command) =>
      mode === 'socket'
        ? slack.deliverSlashCommand({ command, mode: 'socket' })
        : slack.deliverSlashCommand({ command }),
    deliverInteraction: (payload) =>
      mode === 'socket'
        ? slack.deliverInteraction({ payload, mode: 'socket' })
        : slack.deliverInteraction({ payload }),
    reset() {
      slack.reset();
      gateway.reset();
    },
    async close() {
      await adapter.stop();
      await services.close();
      await app.close();
      await slack.close();
      await gateway.close();
    },
  };
}
