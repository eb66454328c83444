import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord/index.ts';
import { type FakeGateway, modelChatRequests, startFakeGateway } from '../fakes/gateway/index.ts';
import { type BotProcess, startBotProcess } from '../support/bot-process.ts';

/**
 * Discord sharding through discord.js's own options: each process identifies with its
 * `[shard_id, num_shards]`, and the fake routes each guild to shard (guild_id >> 22) % num_shards
 * (discord-api-docs events/gateway.mdx, "Sharding").
 */
const apiKey = 'shard-test-key-0123456789';
let gateway: FakeGateway | undefined;
let discord: FakeDiscord | undefined;
const bots: BotProcess[] = [];

afterEach(async () => {
  for (const bot of bots.splice(0)) {
    bot.kill('SIGTERM');
    await bot.exited;
  }
  await Promise.all([gateway?.close(), discord?.close()]);
});

function startBot(fakeDiscord: FakeDiscord, sharding: Record<string, string>): BotProcess {
  const bot = startBotProcess({
    environment: {
      GATEWAY_BASE_URL: gateway?.baseUrl ?? '',
      GATEWAY_API_KEY: apiKey,
      DISCORD_TOKEN: fakeDiscord.token,
      DISCORD_API_URL: fakeDiscord.apiUrl,
      DISCORD_GUILD_IDS: fakeDiscord.guildId,
      STORE_URL: 'memory://',
      ...sharding,
    },
  });
  bots.push(bot);
  return bot;
}

const shardOf = (guildId: string, shardCount: number) =>
  Number((BigInt(guildId) >> 22n) % BigInt(shardCount));

describe('Discord sharding', () => {
  it('the fake closes an IDENTIFY with a shard outside its count with 4010', async () => {
    discord = await startFakeDiscord();
    const socket = new WebSocket(`${discord.origin}/gateway`.replace('http', 'ws'));
    const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
    socket.on('message', (raw) => {
      const payload = JSON.parse(String(raw)) as { op: number };
      if (payload.op === 10) {
        socket.send(
          JSON.stringify({ op: 2, d: { token: discord?.token, intents: 1, shard: [2, 2], properties: {} } }),
        );
      }
    });
    expect(await closed).toBe(4010);
  });

  it('two processes each run one of two shards: every guild is answered once, by the process of its shard', async () => {
    gateway = await startFakeGateway({ apiKey, defaultBehaviour: { text: 'Answered.' } });
    discord = await startFakeDiscord();
    const fakeDiscord = discord;
    // Guilds made until both shards own some (ids are time-based, so which shard is not fixed).
    const guilds = [{ guildId: fakeDiscord.guildId, channelId: fakeDiscord.textChannelIds[0] ?? '' }];
    while (guilds.length < 6 || new Set(guilds.map((guild) => shardOf(guild.guildId, 2))).size < 2) {
      const created = fakeDiscord.createGuild();
      guilds.push({ guildId: created.guildId, channelId: created.textChannelIds[0] ?? '' });
    }
    const first = startBot(fakeDiscord, { DISCORD_SHARD_COUNT: '2', DISCORD_SHARD_IDS: '0' });
    const second = startBot(fakeDiscord, { DISCORD_SHARD_COUNT: '2', DISCORD_SHARD_IDS: '1' });
    const connected = await Promise.all(
      [first, second].map((bot) => bot.waitForLog((line) => line.msg === 'connected to discord', 20_000)),
    );
    await Promise.all(
      [first, second].map((bot) => bot.waitForLog((line) => line.msg === 'parley running', 20_000)),
    );
    expect(fakeDiscord.identifiedShards.toSorted()).toEqual([
      [0, 2],
      [1, 2],
    ]);
    // Each process sees only the guilds of its shard.
    expect(connected.map((line) => line.guildCount)).toEqual([
      guilds.filter((guild) => shardOf(guild.guildId, 2) === 0).length,
      guilds.filter((guild) => shardOf(guild.guildId, 2) === 1).length,
    ]);
    expect(connected.map((line) => line.shardIds)).toEqual([[0], [1]]);
    // Only the process running shard 0 registers the commands.
    const registrations = fakeDiscord.requests.filter(
      (request) => request.method === 'PUT' && request.path.includes('/commands'),
    );
    expect(registrations).toHaveLength(1);
    expect(fakeDiscord.registeredCommands(fakeDiscord.guildId).length).toBeGreaterThan(0);

    for (const guild of guilds) {
      fakeDiscord.sendUserMessage({
        channelId: guild.channelId,
        content: `hello ${guild.guildId}`,
        mentionsBot: true,
      });
    }
    await fakeDiscord.waitFor(
      () =>
        guilds.every((guild) =>
          fakeDiscord
            .messages(guild.channelId)
            .some((message) => message.author.id === fakeDiscord.bot.id && message.content === 'Answered.'),
        ),
      { timeoutMs: 20_000 },
    );
    // A moment for any second answer to show, then exactly one answer each.
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (const guild of guilds) {
      const answers = fakeDiscord
        .messages(guild.channelId)
        .filter((message) => message.author.id === fakeDiscord.bot.id);
      expect(answers).toHaveLength(1);
    }
    expect(modelChatRequests(gateway.requests)).toHaveLength(guilds.length);
  }, 60_000);

  it('auto runs every shard /gateway/bot recommends in one process', async () => {
    gateway = await startFakeGateway({ apiKey, defaultBehaviour: { text: 'Answered.' } });
    discord = await startFakeDiscord({ recommendedShardCount: 2 });
    const bot = startBot(discord, { DISCORD_SHARD_COUNT: 'auto' });
    const connected = await bot.waitForLog((line) => line.msg === 'connected to discord', 30_000);
    expect(connected.shardIds).toEqual([0, 1]);
    expect(connected.shardCount).toBe(2);
    // A new owner's first need, logged at start with the application id (issue 23).
    const invite = await bot.waitForLog((line) => line.msg === 'invite parley to a server', 10_000);
    expect(invite.inviteLink).toBe(
      `https://discord.com/oauth2/authorize?client_id=${discord.applicationId}&integration_type=0&scope=bot%20applications.commands&permissions=309237763072`,
    );
    expect(discord.identifiedShards.toSorted()).toEqual([
      [0, 2],
      [1, 2],
    ]);
  }, 60_000);
});
