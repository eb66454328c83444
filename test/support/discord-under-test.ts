import { type DiscordAdapter, startDiscordAdapter } from '../../adapters/discord/discord-adapter.ts';
import type { InvalidRequestLimits } from '../../adapters/discord/invalid-request-guard.ts';
import { type CatchUpLimits, discordCatchUpLimits } from '../../adapters/discord/missed-messages.ts';
import type { CommandServices } from '../../commands/define-command.ts';
import type { App } from '../../src/app.ts';
import {
  type FakeDiscord,
  type FakeDiscordOptions,
  type FakeMessage,
  startFakeDiscord,
} from '../fakes/discord/index.ts';
import { type FakeGateway, startFakeGateway } from '../fakes/gateway/index.ts';
import { createManualScheduling, type ManualScheduling } from './manual-scheduling.ts';
import { buildTestBot } from './test-bot.ts';

export interface DiscordUnderTest {
  readonly discord: FakeDiscord;
  readonly gateway: FakeGateway;
  readonly app: App;
  readonly services: CommandServices;
  readonly adapter: DiscordAdapter;
  /** Schedules on a clock the test moves, when asked for (`scheduleClockStartMs`). */
  readonly scheduling: ManualScheduling | undefined;
  readonly logOutput: () => string;
  /** The fake guild's `general` channel. */
  readonly generalChannelId: string;
  /** What the bot wrote in a channel, oldest first, ephemeral messages included. */
  botMessages(channelId: string): FakeMessage[];
  close(): Promise<void>;
}

const apiKey = 'discord-e2e-gateway-key-0123456789';

/** A fake Discord and gateway that outlive one start of the bot: for restarts, closed by the test. */
export async function startDiscordFakes(): Promise<{ discord: FakeDiscord; gateway: FakeGateway }> {
  const gateway = await startFakeGateway({
    apiKey,
    models: { 'chat-model': { vision: false }, 'believed-tools-model': { tools: false } },
  });
  return { discord: await startFakeDiscord(), gateway };
}

/**
 * The real bot on Discord: config, app, command services and the discord.js adapter, logged in to
 * the fake Discord, answering through the fake gateway, over loopback.
 */
export async function startDiscordUnderTest(
  /** The bot's environment; a function of the fake when it names channels the test makes first. */
  environment: Record<string, string> | ((discord: FakeDiscord) => Record<string, string>) = {},
  {
    fakeDiscord = {},
    invalidRequestLimits,
    catchUpLimits,
    scheduleClockStartMs,
    running,
  }: {
    fakeDiscord?: FakeDiscordOptions;
    /** Runs schedules on a manual clock starting here (`under.scheduling.clock`). */
    scheduleClockStartMs?: number;
    /** The adapter's invalid request guard, lowered to reach it in a test. */
    invalidRequestLimits?: InvalidRequestLimits;
    /** How far the catch-up after a fresh identify reads, lowered to reach its bounds in a test. */
    catchUpLimits?: Partial<CatchUpLimits>;
    /**
     * The fake Discord and gateway of an earlier start, for a second process of the same bot (a
     * restart): this start leaves them running when it closes. With a file or server STORE_URL the
     * two share the store too.
     */
    running?: { readonly discord: FakeDiscord; readonly gateway: FakeGateway };
  } = {},
): Promise<DiscordUnderTest> {
  const gateway =
    running?.gateway ??
    (await startFakeGateway({
      apiKey,
      models: { 'chat-model': { vision: false }, 'believed-tools-model': { tools: false } },
    }));
  const discord = running?.discord ?? (await startFakeDiscord(fakeDiscord));
  const bot = buildTestBot({
    gatewayBaseUrl: gateway.baseUrl,
    gatewayApiKey: apiKey,
    environment: {
      DISCORD_TOKEN: discord.token,
      DISCORD_API_URL: discord.apiUrl,
      DISCORD_GUILD_IDS: discord.guildId,
      ...(typeof environment === 'function' ? environment(discord) : environment),
    },
  });
  const { config, app, logger } = bot;
  if (!config.platforms.discord) throw new Error('DISCORD_TOKEN did not reach the config');
  const scheduling =
    scheduleClockStartMs === undefined
      ? undefined
      : createManualScheduling({ app, config, services: bot.services, startMs: scheduleClockStartMs });
  const services = scheduling?.services ?? bot.services;
  const adapter = await startDiscordAdapter({
    services,
    discord: config.platforms.discord,
    maxImageBytes: config.images.maxInputBytes,
    logger,
    ...(invalidRequestLimits ? { invalidRequestLimits } : {}),
    notifyAfterMs: config.notifyAfterMs,
    ...(catchUpLimits ? { catchUpLimits: { ...discordCatchUpLimits, ...catchUpLimits } } : {}),
    watermarkStore: app.store.namespace('discord-catch-up'),
    // The limits the adapter cannot learn from Discord are the fake's, when a test changed them.
    platformLimits: {
      ...(fakeDiscord.requestSizeLimitBytes === undefined
        ? {}
        : { requestBytes: fakeDiscord.requestSizeLimitBytes }),
      ...(fakeDiscord.interactionTokenLifetimeMs === undefined
        ? {}
        : { interactionTokenLifetimeMs: fakeDiscord.interactionTokenLifetimeMs }),
    },
  });
  await scheduling?.start();
  return {
    discord,
    gateway,
    app,
    services,
    adapter,
    scheduling,
    logOutput: bot.logOutput,
    generalChannelId: discord.textChannelIds[0] ?? '',
    botMessages: (channelId) =>
      discord.messages(channelId).filter((message) => message.author.id === discord.bot.id),
    async close() {
      await scheduling?.stop();
      await adapter.stop();
      await bot.close();
      if (!running) await Promise.all([discord.close(), gateway.close()]);
    },
  };
}
