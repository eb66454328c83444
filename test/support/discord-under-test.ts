import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DiscordAdapter, startDiscordAdapter } from '../../adapters/discord/discord-adapter.ts';
import { createCommandServices } from '../../commands/command-services.ts';
import type { CommandServices } from '../../commands/define-command.ts';
import { type App, createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord/index.ts';
import { type FakeGateway, startFakeGateway } from '../fakes/gateway/index.ts';
import { createCapturedLogger } from './capture-logger.ts';

export interface DiscordUnderTest {
  readonly discord: FakeDiscord;
  readonly gateway: FakeGateway;
  readonly app: App;
  readonly services: CommandServices;
  readonly adapter: DiscordAdapter;
  readonly logOutput: () => string;
  close(): Promise<void>;
}

const apiKey = 'discord-e2e-gateway-key-0123456789';

/**
 * The real bot on Discord: config, app, command services and the discord.js adapter, logged in to
 * the fake Discord, answering through the fake gateway, over loopback.
 */
export async function startDiscordUnderTest(
  environment: Record<string, string> = {},
): Promise<DiscordUnderTest> {
  const gateway = await startFakeGateway({ apiKey, models: { 'chat-model': { vision: false } } });
  const discord = await startFakeDiscord();
  const workDirectory = mkdtempSync(join(tmpdir(), 'parley-discord-'));
  const catalogPath = join(workDirectory, 'models.json');
  writeFileSync(
    catalogPath,
    JSON.stringify({
      defaults: { contextTokens: 32_000 },
      models: {
        'chat-model': { vision: false, jsonSchema: true },
        'vision-model': { vision: true, jsonSchema: true },
        'image-model': { imageInput: true, aspectRatio: true },
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
      DISCORD_TOKEN: discord.token,
      DISCORD_API_URL: discord.apiUrl,
      DISCORD_GUILD_IDS: discord.guildId,
      ...environment,
    },
    envFilePath: join(workDirectory, 'no.env'),
  });
  const { logger, output } = createCapturedLogger(config.secrets);
  const app = createApp({ config, logger });
  const services = createCommandServices({ app });
  if (!config.discord) throw new Error('DISCORD_TOKEN did not reach the config');
  const adapter = await startDiscordAdapter({
    services,
    discord: config.discord,
    maxImageBytes: config.images.maxInputBytes,
    logger,
  });
  return {
    discord,
    gateway,
    app,
    services,
    adapter,
    logOutput: output,
    async close() {
      await adapter.stop();
      await services.close();
      await app.close();
      await Promise.all([discord.close(), gateway.close()]);
    },
  };
}
