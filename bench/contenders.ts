import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parleyNodeFlags } from '../bin/node-flags.ts';
import type { FakeDiscord } from '../test/fakes/discord/index.ts';
import type { FakeGateway } from '../test/fakes/gateway/index.ts';
import type { RunningChild } from './child-process.ts';

/** The two bots the bench compares. */
export type ContenderName = 'bot' | 'floor';

export const contenderNames: readonly ContenderName[] = ['bot', 'floor'];

/** How to start one contender and tell when it is ready for the load. */
export interface ContenderLaunch {
  /** The script Node runs, an absolute path. */
  script: string;
  /** Flags node starts with before the script (parley's own, as `npm start` passes them). */
  nodeFlags: readonly string[];
  environment: Record<string, string>;
  waitUntilReady(options: { child: RunningChild; discord: FakeDiscord; timeoutMs: number }): Promise<void>;
}

const repositoryRoot = resolve(import.meta.dirname, '..');
export const benchModel = 'bench-model';
export const benchGatewayApiKey = 'bench-gateway-key-0123456789';

/**
 * The environment of each contender. parley runs as `npm start` would, on the default kind of store
 * (an SQLite file, here in the scenario's own temporary directory) and logging only warnings.
 */
export function launchOf({
  contender,
  discord,
  gateway,
  workDirectory,
  otlpEndpoint,
}: {
  contender: ContenderName;
  discord: FakeDiscord;
  gateway: FakeGateway;
  workDirectory: string;
  /** parley with tracing on, exporting here (`--otlp`); the floor has no tracing. */
  otlpEndpoint?: string | undefined;
}): ContenderLaunch {
  const shared = {
    GATEWAY_BASE_URL: gateway.baseUrl,
    GATEWAY_API_KEY: benchGatewayApiKey,
    CHAT_MODEL: benchModel,
    DISCORD_TOKEN: discord.token,
    DISCORD_API_URL: discord.apiUrl,
  };
  if (contender === 'floor') {
    return {
      script: join(repositoryRoot, 'bench', 'floor-bot.ts'),
      nodeFlags: [],
      environment: shared,
      waitUntilReady: ({ child, timeoutMs }) => child.waitForLine('ready', timeoutMs),
    };
  }
  const catalogPath = join(workDirectory, 'models.json');
  writeFileSync(
    catalogPath,
    JSON.stringify({
      defaults: { contextTokens: 32_000 },
      models: { [benchModel]: { vision: true, jsonSchema: true } },
    }),
  );
  return {
    script: join(repositoryRoot, 'bin', 'parley.ts'),
    nodeFlags: parleyNodeFlags,
    environment: {
      ...shared,
      VISION_MODEL: benchModel,
      STRUCTURED_MODEL: benchModel,
      MODEL_CAPABILITIES_FILE: catalogPath,
      DISCORD_GUILD_IDS: discord.guildId,
      STORE_URL: `sqlite://${join(workDirectory, 'parley.sqlite')}`,
      LOG_LEVEL: 'warn',
      LOG_FILE: join(workDirectory, 'parley.log'),
      IMAGE_OUTPUT_DIR: join(workDirectory, 'out'),
      // The health server runs as under `npm start`, on a free port: the machine may run others.
      HEALTH_PORT: '0',
      ...(otlpEndpoint === undefined
        ? {}
        : { OTEL_EXPORTER_OTLP_ENDPOINT: otlpEndpoint, OTEL_SERVICE_NAME: 'parley-bench' }),
    },
    // parley registers its slash commands last thing before it takes messages.
    waitUntilReady: ({ child, discord: fake, timeoutMs }) =>
      pollUntil({
        isDone: () => fake.identifiedSessionCount === 1 && fake.registeredCommands(fake.guildId).length > 0,
        child,
        timeoutMs,
        what: 'parley to register its commands',
      }),
  };
}

async function pollUntil({
  isDone,
  child,
  timeoutMs,
  what,
}: {
  isDone: () => boolean;
  child: RunningChild;
  timeoutMs: number;
  what: string;
}): Promise<void> {
  const deadlineMs = Date.now() + timeoutMs;
  while (!isDone()) {
    if (child.hasExited) throw new Error(`the child exited while waiting for ${what}`);
    if (Date.now() > deadlineMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
