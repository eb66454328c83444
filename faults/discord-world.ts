import { type FakeDiscord, type FakeDiscordOptions, startFakeDiscord } from '../test/fakes/discord/index.ts';
import type { BotProcess } from '../test/support/bot-process.ts';
import { type FaultProxy, startFaultProxy } from '../test/support/fault-proxy.ts';
import {
  baseMark,
  baseTextSince,
  freePort,
  isRunning,
  type ObservedText,
  startWorldBase,
  type World,
  type WorldMark,
  type WorldSettings,
  waitUntilRunning,
} from './world.ts';

/** parley on the fake Discord, as a child process. */
export interface DiscordWorld extends World {
  readonly discord: FakeDiscord;
  /** Between the bot and Discord's REST API, when the world was started with one. */
  readonly restProxy: FaultProxy | undefined;
  /** A fresh text channel, so a scenario's messages are its own. */
  newChannel(): string;
  /** The conversation key parley uses for a guild channel. */
  conversationKey(channelId: string): string;
  /** Every bot process of the world (more than one with `processCount`), the first one first. */
  readonly bots: readonly BotProcess[];
}

interface DiscordPlatformMark {
  readonly requestCount: number;
  readonly atMs: number;
}

/**
 * Starts the fakes and the bot, and resolves once the bot has logged in and registered its commands.
 * With `hasRestProxy`, REST calls go through a fault proxy (the gateway WebSocket and the CDN do not:
 * discord.js asks REST for the WebSocket's address, and attachments are linked by the fake itself).
 */
export async function startDiscordWorld({
  settings = {},
  fakeDiscordOptions = {},
  hasRestProxy = false,
  processCount = 1,
}: {
  settings?: WorldSettings;
  fakeDiscordOptions?: FakeDiscordOptions;
  hasRestProxy?: boolean;
  /**
   * Bot processes on the one store (Redis), each connected to the same shard, so each receives every
   * message (Discord allows several sessions on one shard, events/gateway.mdx, "Sharding").
   */
  processCount?: number;
} = {}): Promise<DiscordWorld> {
  const base = await startWorldBase(settings);
  const discord = await startFakeDiscord({ textChannelCount: 1, ...fakeDiscordOptions });
  const restProxy = hasRestProxy ? await startFaultProxy({ targetOrigin: discord.origin }) : undefined;
  const channels = new Set<string>(discord.textChannelIds);
  const environment = {
    DISCORD_TOKEN: discord.token,
    DISCORD_API_URL: restProxy === undefined ? discord.apiUrl : `${restProxy.origin}/api`,
    DISCORD_GUILD_IDS: discord.guildId,
  };
  const startBot = async (): Promise<BotProcess> => {
    const bot = base.startBot(environment);
    await waitUntilRunning(bot);
    return bot;
  };
  const platformMark = (atMs: number): DiscordPlatformMark => ({
    requestCount: discord.requests.length,
    atMs,
  });
  const startMark = baseMark({ base, platform: platformMark(0) });
  let bot: BotProcess;
  const extraBots: BotProcess[] = [];
  try {
    bot = await startBot();
    for (let index = 1; index < processCount; index += 1) {
      const extra = base.startBot({ ...environment, HEALTH_PORT: String(await freePort()) });
      await waitUntilRunning(extra);
      extraBots.push(extra);
    }
  } catch (error) {
    await base.close();
    await Promise.all([discord.close(), restProxy?.close()]);
    throw error;
  }
  const world: DiscordWorld = {
    gateway: base.gateway,
    gatewayRequests: base.gatewayRequests,
    gatewayProxy: base.gatewayProxy,
    storeUrl: base.storeUrl,
    workDirectory: base.workDirectory,
    healthPort: base.healthPort,
    startMark,
    secrets: [base.gatewayApiKey, discord.token],
    discord,
    restProxy,
    get bot() {
      return bot;
    },
    get bots() {
      return [bot, ...extraBots];
    },
    async restart() {
      bot = await startBot();
      return bot;
    },
    isBotRunning: () => isRunning(bot),
    newChannel() {
      const channelId = discord.createTextChannel();
      channels.add(channelId);
      return channelId;
    },
    conversationKey: (channelId) => `discord:${discord.guildId}:${channelId}`,
    mark: () => baseMark({ base, platform: platformMark(Date.now()) }),
    textSince(mark: WorldMark): ObservedText[] {
      const since = mark.platform as DiscordPlatformMark;
      const texts = baseTextSince({ base, mark });
      for (const call of discord.requests.slice(since.requestCount)) {
        texts.push({ source: `Discord ${call.method} ${call.route}`, text: JSON.stringify(call.json ?? '') });
      }
      for (const channelId of channels) {
        for (const message of discord.messages(channelId)) {
          const revisions = message.revisions.filter((revision) => revision.atMs >= since.atMs);
          if (revisions.length === 0) continue;
          texts.push({
            source: `Discord message in ${channelId}`,
            text: [...revisions.map((revision) => revision.content), JSON.stringify(message.embeds)].join(
              '\n',
            ),
          });
        }
      }
      return texts;
    },
    async close() {
      await base.close();
      await Promise.all([discord.close(), restProxy?.close()]);
    },
  };
  return world;
}
