import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FakeGateway, type RecordedRequest, startFakeGateway } from '../test/fakes/gateway/index.ts';
import { type BotProcess, startBotProcess } from '../test/support/bot-process.ts';
import { type FaultProxy, startFaultProxy } from '../test/support/fault-proxy.ts';
import { replyTextForRequest } from './turn-markers.ts';

/** The model every world's bot chats with: it sees images and has a 32k-token context. */
export const chatModel = 'faults-chat';
export const imageModel = 'faults-image';

let isKeepingLogs = false;

/** Keeps every world's folder (the bots' output in `bot-N.log`, the store) instead of removing it. */
export function keepWorldFolders(): void {
  isKeepingLogs = true;
}

/** Text a world saw since a mark: what the bot logged, sent to the platform and to the model. */
export interface ObservedText {
  readonly source: string;
  readonly text: string;
}

/** Where to start reading a world's text from. */
export interface WorldMark {
  readonly outputLengths: ReadonlyMap<BotProcess, number>;
  readonly gatewayRequestCount: number;
  readonly platform: unknown;
}

/** What every world has, whatever the platform: the fake gateway, the store, the bot process. */
export interface World {
  readonly gateway: FakeGateway;
  /** Every request the gateway got, kept across `gateway.reset()`. */
  readonly gatewayRequests: readonly RecordedRequest[];
  /** Between the bot and the gateway, when the world was started with one. */
  readonly gatewayProxy: FaultProxy | undefined;
  readonly storeUrl: string;
  readonly workDirectory: string;
  /** Every value a leak would matter for: keys, tokens, the signing secret. */
  readonly secrets: readonly string[];
  /** The bot process running now (a new one after `restart`). */
  readonly bot: BotProcess;
  /** The port of /healthz, /readyz and /metrics. */
  readonly healthPort: number;
  /** Taken before the first bot started: everything the world saw is since then. */
  readonly startMark: WorldMark;
  /** Starts the bot again on the same store and platform, after it was stopped or killed. */
  restart(): Promise<BotProcess>;
  /** Whether the bot process is still running. */
  isBotRunning(): boolean;
  mark(): WorldMark;
  textSince(mark: WorldMark): ObservedText[];
  close(): Promise<void>;
}

/** How the bot of a world is configured, beyond its platform. */
export interface WorldSettings {
  /** Defaults to an SQLite file in the world's folder. */
  readonly storeUrl?: string;
  /** The world's folder; a temporary one by default. */
  readonly workDirectory?: string;
  /** More variables for the bot, e.g. `GATEWAY_TIMEOUT_MS`. */
  readonly environment?: Record<string, string>;
  /** Puts a fault proxy between the bot and the gateway. */
  readonly hasGatewayProxy?: boolean;
}

/** The parts a platform world builds on. */
export interface WorldBase {
  readonly gateway: FakeGateway;
  readonly gatewayRequests: RecordedRequest[];
  readonly gatewayProxy: FaultProxy | undefined;
  readonly gatewayApiKey: string;
  readonly workDirectory: string;
  readonly storeUrl: string;
  readonly healthPort: number;
  readonly ownsWorkDirectory: boolean;
  /** Every bot process this world started, oldest first. */
  readonly bots: BotProcess[];
  startBot(platformEnvironment: Record<string, string>): BotProcess;
  close(): Promise<void>;
}

/** Starts the fake gateway and prepares the folder, catalog and store of a world. */
export async function startWorldBase(settings: WorldSettings): Promise<WorldBase> {
  const gatewayApiKey = `faults-gateway-key-${randomBytes(12).toString('hex')}`;
  const gatewayRequests: RecordedRequest[] = [];
  const gateway = await startFakeGateway({
    apiKey: gatewayApiKey,
    replyTextFor: replyTextForRequest,
    onRequest: (request) => gatewayRequests.push(request),
  });
  const gatewayProxy = settings.hasGatewayProxy
    ? await startFaultProxy({ targetOrigin: new URL(gateway.baseUrl).origin })
    : undefined;
  const ownsWorkDirectory = settings.workDirectory === undefined;
  const workDirectory = settings.workDirectory ?? mkdtempSync(join(tmpdir(), 'parley-faults-'));
  const catalogPath = join(workDirectory, 'models.json');
  writeFileSync(
    catalogPath,
    JSON.stringify({
      defaults: { contextTokens: 32_000 },
      models: {
        [chatModel]: { vision: true, jsonSchema: true, contextTokens: 32_000 },
        [imageModel]: { imageInput: true, imageUrlOutput: true, aspectRatio: true },
      },
    }),
  );
  const storeUrl = settings.storeUrl ?? `sqlite://${join(workDirectory, 'store', 'parley.sqlite')}`;
  const healthPort = await freePort();
  const bots: BotProcess[] = [];
  const gatewayUrl =
    gatewayProxy === undefined
      ? gateway.baseUrl
      : `${gatewayProxy.origin}${new URL(gateway.baseUrl).pathname}`;
  return {
    gateway,
    gatewayRequests,
    gatewayProxy,
    gatewayApiKey,
    workDirectory,
    storeUrl,
    healthPort,
    ownsWorkDirectory,
    bots,
    startBot(platformEnvironment) {
      const bot = startBotProcess({
        workingDirectory: workDirectory,
        environment: {
          GATEWAY_BASE_URL: gatewayUrl,
          GATEWAY_API_KEY: gatewayApiKey,
          CHAT_MODEL: chatModel,
          VISION_MODEL: chatModel,
          STRUCTURED_MODEL: chatModel,
          IMAGE_MODEL: imageModel,
          MODEL_CAPABILITIES_FILE: catalogPath,
          STORE_URL: storeUrl,
          HEALTH_PORT: String(healthPort),
          IMAGE_OUTPUT_DIR: join(workDirectory, 'out'),
          ...platformEnvironment,
          ...settings.environment,
        },
      });
      bots.push(bot);
      void bot.exited.then(() => exitedBots.add(bot));
      return bot;
    },
    async close() {
      for (const [index, bot] of bots.entries()) {
        bot.kill('SIGKILL');
        await bot.exited;
        if (isKeepingLogs) writeFileSync(join(workDirectory, `bot-${index + 1}.log`), bot.output());
      }
      await Promise.all([gateway.close(), gatewayProxy?.close()]);
      if (isKeepingLogs) process.stdout.write(`  kept ${workDirectory}\n`);
      else if (ownsWorkDirectory) rmSync(workDirectory, { recursive: true, force: true });
    },
  };
}

/** The text of a world's bots and gateway since a mark; the platform adds its own. */
export function baseTextSince({ base, mark }: { base: WorldBase; mark: WorldMark }): ObservedText[] {
  const texts: ObservedText[] = base.bots.map((bot, index) => ({
    source: `bot log (process ${index + 1})`,
    text: bot.output().slice(mark.outputLengths.get(bot) ?? 0),
  }));
  for (const request of base.gatewayRequests.slice(mark.gatewayRequestCount)) {
    texts.push({ source: `gateway request ${request.path}`, text: JSON.stringify(request.body ?? '') });
  }
  return texts;
}

export function baseMark({ base, platform }: { base: WorldBase; platform: unknown }): WorldMark {
  return {
    outputLengths: new Map(base.bots.map((bot) => [bot, bot.output().length])),
    gatewayRequestCount: base.gatewayRequests.length,
    platform,
  };
}

/** A port nothing listens on now, for the bot's health server. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

const exitedBots = new WeakSet<BotProcess>();

/** How long a bot may take to log in and register its commands on a busy machine. */
const startTimeoutMs = 60_000;

/** The bot ended (or never got ready) before it was running: how it ended and what it said. */
export class BotDidNotStart extends Error {
  readonly exitCode: number | null;
  readonly output: string;
  constructor({ exitCode, output }: { exitCode: number | null; output: string }) {
    super(`the bot did not start (exit code ${exitCode}): ${output.trim().split('\n').at(-1) ?? ''}`);
    this.name = 'BotDidNotStart';
    this.exitCode = exitCode;
    this.output = output;
  }
}

/** Waits for the bot's "parley running"; a bot that exits first (or hangs) becomes `BotDidNotStart`. */
export async function waitUntilRunning(bot: BotProcess): Promise<void> {
  try {
    await bot.waitForLog((line) => line.msg === 'parley running', startTimeoutMs);
  } catch {
    bot.kill('SIGKILL');
    const { code } = await bot.exited;
    throw new BotDidNotStart({ exitCode: code, output: bot.output() });
  }
}

/** Whether a bot process has not exited yet. */
export function isRunning(bot: BotProcess): boolean {
  return !exitedBots.has(bot);
}
