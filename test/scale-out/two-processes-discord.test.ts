import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createHistoryStore } from '../../src/conversation/history-store.ts';
import { createStore } from '../../src/state/create-store.ts';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord/index.ts';
import { type FakeGateway, modelChatRequests, startFakeGateway } from '../fakes/gateway/index.ts';
import { type BotProcess, countLogLines, startBotProcess } from '../support/bot-process.ts';
import { busiestWindowCount } from '../support/request-seconds.ts';

/**
 * Two real bot processes on one Redis, both connected to the same fake Discord on the same shard,
 * so each receives every message (Discord allows several sessions on one shard, events/gateway.mdx,
 * "Sharding"): the shared dedupe lets one process take each message, the shared lock answers each
 * channel one turn at a time in order, and the shared window keeps the bot to Discord's 50 requests
 * a second for the whole token.
 */
const redisUrl = process.env.REDIS_URL;
const apiKey = 'two-discord-key-0123456789';
const channelCount = 50;
const messagesPerChannel = 4;
let gateway: FakeGateway | undefined;
let discord: FakeDiscord | undefined;
const bots: BotProcess[] = [];

afterEach(async () => {
  for (const bot of bots.splice(0)) {
    bot.kill('SIGKILL');
    await bot.exited;
  }
  await Promise.all([gateway?.close(), discord?.close()]);
});

function startBot(
  fakeDiscord: FakeDiscord,
  fakeGateway: FakeGateway,
  environment: Record<string, string> = {},
) {
  const bot = startBotProcess({
    environment: {
      GATEWAY_BASE_URL: fakeGateway.baseUrl,
      GATEWAY_API_KEY: apiKey,
      DISCORD_TOKEN: fakeDiscord.token,
      DISCORD_API_URL: fakeDiscord.apiUrl,
      DISCORD_GUILD_IDS: fakeDiscord.guildId,
      STORE_URL: redisUrl ?? '',
      LOG_LEVEL: 'info',
      // 200 mentions reach both processes within a few milliseconds, and on two shared cores some
      // reach the conversation queue about 450 ms after they were sent (measured; the log says
      // "a turn reached its conversation queue after the reorder window"). Real events arrive
      // spread out; this flood needs the wider window to keep each channel's order.
      LOCK_ORDER_WINDOW_MS: '1500',
      ...environment,
    },
  });
  bots.push(bot);
  return bot;
}

/** Waits for `check`, naming `step` and showing both bots' last output when it times out. */
async function step<Value>(name: string, waiting: Promise<Value>): Promise<Value> {
  return waiting.catch((error: unknown) => {
    const outputs = bots.map((bot, index) => {
      const late = bot.logLines.filter(
        (line) => line.msg === 'a turn reached its conversation queue after the reorder window',
      );
      return `--- bot ${index + 1} (${late.length} turns late, at most ${Math.max(0, ...late.map((line) => Number(line.lateByMs)))} ms):\n${bot.output().slice(-1500)}`;
    });
    throw new Error(`${name}: ${String(error)}\n${outputs.join('\n')}`);
  });
}

/** The user text of message `index` (1-based) in channel number `channel`. */
const askText = (channel: number, index: number) => `m-${channel}-${index}`;

describe.skipIf(redisUrl === undefined)(
  redisUrl === undefined
    ? 'two bot processes on Discord (skipped: REDIS_URL is not set; run with REDIS_URL=redis://127.0.0.1:6379)'
    : 'two bot processes on Discord',
  () => {
    it(`answers ${channelCount * messagesPerChannel} mentions in ${channelCount} channels once each, in order, within 50 requests a second and no 429`, async () => {
      gateway = await startFakeGateway({
        apiKey,
        replyTextFor: (request) => {
          const asked = JSON.stringify(request.body)
            .match(/m-\d+-\d+/g)
            ?.at(-1);
          return asked === undefined ? undefined : `Answer to ${asked}.`;
        },
      });
      discord = await startFakeDiscord({ textChannelCount: channelCount });
      const fakeDiscord = discord;
      const fakeGateway = gateway;
      const first = startBot(fakeDiscord, fakeGateway);
      const second = startBot(fakeDiscord, fakeGateway);
      await step(
        'both processes running',
        Promise.all(
          [first, second].map((bot) => bot.waitForLog((line) => line.msg === 'parley running', 30_000)),
        ),
      );
      fakeDiscord.reset();
      const channelIds = fakeDiscord.textChannelIds.slice(0, channelCount);
      // Four messages a channel in quick succession, the channels interleaved.
      for (let index = 1; index <= messagesPerChannel; index += 1) {
        for (const [channel, channelId] of channelIds.entries()) {
          fakeDiscord.sendUserMessage({ channelId, content: askText(channel, index), mentionsBot: true });
        }
      }
      const botMessages = (channelId: string) =>
        fakeDiscord.messages(channelId).filter((message) => message.author.id === fakeDiscord.bot.id);
      const isAnswered = (channel: number, channelId: string) =>
        Array.from({ length: messagesPerChannel }, (_, index) => index + 1).every((index) =>
          botMessages(channelId).some((message) =>
            message.content.includes(`Answer to ${askText(channel, index)}.`),
          ),
        );
      await step(
        'every mention answered',
        fakeDiscord.waitFor(() => channelIds.every((channelId, channel) => isAnswered(channel, channelId)), {
          timeoutMs: 150_000,
        }),
      );
      // Each answer exactly once: a second answer would be a second bot message naming the same ask.
      for (const [channel, channelId] of channelIds.entries()) {
        for (let index = 1; index <= messagesPerChannel; index += 1) {
          const answers = botMessages(channelId).filter((message) =>
            message.content.includes(`Answer to ${askText(channel, index)}.`),
          );
          expect(answers, `${askText(channel, index)} answered once`).toHaveLength(1);
        }
      }
      const chatRequests = modelChatRequests(fakeGateway.requests);
      expect(chatRequests).toHaveLength(channelCount * messagesPerChannel);

      // The token's budget: no second with more than 50 requests, and not one 429.
      const counted = fakeDiscord.requests.filter(
        (request) => !request.path.startsWith('/interactions/') && !request.path.startsWith('/webhooks/'),
      );
      expect(busiestWindowCount(counted.map((request) => request.atMs))).toBeLessThanOrEqual(50);
      expect(fakeDiscord.rateLimitHits.total).toBe(0);

      // History: per channel, the four turns in the order they were sent, each with its answer.
      const logger = pino({ level: 'silent' });
      const store = createStore({ storeUrl: redisUrl ?? '', namespace: 'history', logger });
      const history = createHistoryStore({ store, maxTurns: 50, logger });
      try {
        await step(
          'history recorded',
          (async () => {
            for (const [channel, channelId] of channelIds.entries()) {
              const key = `discord:${fakeDiscord.guildId}:${channelId}`;
              let turns = await history.load(key);
              for (let attempt = 0; turns.length < messagesPerChannel * 2 && attempt < 100; attempt += 1) {
                await new Promise((resolve) => setTimeout(resolve, 100));
                turns = await history.load(key);
              }
              const expected = Array.from({ length: messagesPerChannel }, (_, index) => [
                askText(channel, index + 1),
                `Answer to ${askText(channel, index + 1)}.`,
              ]).flat();
              const texts = turns.map((turn) =>
                turn.role === 'user' ? (turn.text.match(/m-\d+-\d+/)?.[0] ?? turn.text) : turn.text,
              );
              expect(texts, `history of channel ${channel}`).toEqual(expected);
              await history.reset(key);
            }
          })(),
        );
      } finally {
        await store.disconnect();
      }
      // Together the processes answered every turn exactly once. Which process takes a message is
      // whichever claims it first, so a process slowed by the machine may take few or none.
      const expected = channelCount * messagesPerChannel;
      expect(await countLogLines({ bots: [first, second], msg: 'reply finished', expected })).toBe(expected);
    }, 240_000);
  },
);
