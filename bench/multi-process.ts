import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { proxyRequests } from '@discordjs/proxy';
import { REST } from '@discordjs/rest';
import { type FakeDiscord, startFakeDiscord } from '../test/fakes/discord/index.ts';
import { startFakeGateway } from '../test/fakes/gateway/index.ts';
import { type BotProcess, startBotProcess } from '../test/support/bot-process.ts';
import { busiestWindowCount } from '../test/support/request-seconds.ts';
import { loadProfile, streamShapeOf } from './load-profile.ts';

/**
 * `npm run bench -- --processes 2`: the load (one mention in each of N channels, a 300-token
 * stream at 50 tokens/s) on P bot processes, each running one of P Discord shards, sharing one
 * Redis: how long until every channel shows its first text and its whole answer, and how close the
 * bot gets to Discord's 50 requests a second for the whole token, the bound no number of processes
 * can pass.
 */
const apiKey = 'bench-processes-key-0123456789';
const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    processes: { type: 'string', default: '2' },
    conversations: { type: 'string', default: '500,2000' },
    // redis: the shared window in Redis (what parley does); proxy: every process's REST through one
    // @discordjs/proxy, the alternative the issue names, with no shared window.
    rest: { type: 'string', default: 'redis' },
  },
  allowPositionals: false,
});
const processCounts = String(values.processes).split(',').map(Number);
const conversationCounts = String(values.conversations).split(',').map(Number);
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const isProxied = values.rest === 'proxy';

/** @discordjs/proxy in front of the fake: one REST queue (and its global limit) for every process. */
async function startRestProxy(apiUrl: string): Promise<{ apiUrl: string; server: Server }> {
  const rest = new REST({ api: apiUrl, globalRequestsPerSecond: 50 });
  const server = createServer(proxyRequests(rest));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { apiUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`, server };
}

interface Figures {
  processes: number;
  conversations: number;
  firstTextP50Ms: number;
  firstTextP95Ms: number;
  allAnsweredMs: number;
  requests: number;
  busiestSecond: number;
  requestsPerSecond: number;
  rateLimited: number;
  /** Channels without their whole answer at the end (cut, failed, or still waiting). */
  unanswered: number;
}

const percentile = (values: number[], fraction: number) =>
  values.toSorted((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * fraction))] ?? 0;

async function runOnce(processCount: number, conversationCount: number): Promise<Figures> {
  const shape = streamShapeOf(1);
  const answerText = 'word '.repeat((loadProfile.tokensPerReply * loadProfile.charactersPerToken) / 5).trim();
  const gateway = await startFakeGateway({
    apiKey,
    defaultBehaviour: {
      text: answerText,
      chunkSize: shape.charactersPerChunk,
      delayBetweenChunksMs: shape.intervalMs,
      latencyMs: shape.latencyMs,
    },
  });
  // Guilds of 50 channels each, so every shard gets some (a guild's channels all go to its shard).
  const discord: FakeDiscord = await startFakeDiscord({
    textChannelCount: 50,
    isCheckingSpecification: false,
  });
  const channelIds = [...discord.textChannelIds];
  while (channelIds.length < conversationCount) {
    channelIds.push(...discord.createGuild({ textChannelCount: 50 }).textChannelIds);
  }
  const bots: BotProcess[] = [];
  const proxy = isProxied ? await startRestProxy(discord.apiUrl) : undefined;
  try {
    for (let shard = 0; shard < processCount; shard += 1) {
      bots.push(
        startBotProcess({
          environment: {
            GATEWAY_BASE_URL: gateway.baseUrl,
            GATEWAY_API_KEY: apiKey,
            DISCORD_TOKEN: discord.token,
            DISCORD_API_URL: proxy?.apiUrl ?? discord.apiUrl,
            DISCORD_GUILD_IDS: discord.guildId,
            // Behind the proxy each shard keeps its own store: no shared window, the proxy is the budget.
            STORE_URL: processCount > 1 && !isProxied ? redisUrl : 'memory://',
            LOG_LEVEL: 'info',
            ...(processCount > 1
              ? { DISCORD_SHARD_COUNT: String(processCount), DISCORD_SHARD_IDS: String(shard) }
              : {}),
          },
        }),
      );
    }
    await Promise.all(bots.map((bot) => bot.waitForLog((line) => line.msg === 'parley running', 60_000)));
    discord.reset();
    const sentAtMs = new Map<string, number>();
    const firstTextMs = new Map<string, number>();
    const doneMs = new Map<string, number>();
    /** Channels whose answer carries a warning (cut, failed) instead of the whole text. */
    const failed = new Set<string>();
    const unsubscribe = discord.subscribe(() => {
      const now = performance.now();
      for (const channelId of sentAtMs.keys()) {
        if (doneMs.has(channelId)) continue;
        const answers = discord.messages(channelId).filter((message) => message.author.id === discord.bot.id);
        const answer = answers[0];
        if (!answer) continue;
        if (!firstTextMs.has(channelId)) firstTextMs.set(channelId, now - (sentAtMs.get(channelId) ?? now));
        if (answer.content.startsWith(answerText))
          doneMs.set(channelId, now - (sentAtMs.get(channelId) ?? now));
        // A reply that broke off ends with a ⚠ note (reply-notes.ts); it will not become whole, so
        // the run stops waiting for it and counts it under "not whole".
        else if (answers.some((message) => message.content.includes('⚠'))) failed.add(channelId);
      }
    });
    const startedAtMs = performance.now();
    for (const channelId of channelIds.slice(0, conversationCount)) {
      sentAtMs.set(channelId, performance.now());
      discord.sendUserMessage({ channelId, content: 'tell me something', mentionsBot: true });
    }
    await discord
      .waitFor(() => doneMs.size + failed.size >= conversationCount, { timeoutMs: 600_000 })
      .catch(() => undefined);
    const allAnsweredMs = performance.now() - startedAtMs;
    unsubscribe();
    const counted = discord.requests.filter(
      (request) => !request.path.startsWith('/interactions/') && !request.path.startsWith('/webhooks/'),
    );
    const firstTexts = [...firstTextMs.values()];
    return {
      processes: processCount,
      conversations: conversationCount,
      firstTextP50Ms: percentile(firstTexts, 0.5),
      firstTextP95Ms: percentile(firstTexts, 0.95),
      allAnsweredMs,
      requests: counted.length,
      busiestSecond: busiestWindowCount(counted.map((request) => request.atMs)),
      requestsPerSecond: counted.length / (allAnsweredMs / 1000),
      rateLimited: discord.rateLimitHits.total,
      unanswered: conversationCount - doneMs.size,
    };
  } finally {
    for (const bot of bots) bot.kill('SIGTERM');
    await Promise.all(bots.map((bot) => bot.exited));
    proxy?.server.close();
    await Promise.all([gateway.close(), discord.close()]);
  }
}

const rows: Figures[] = [];
process.stdout.write(
  `REST budget: ${isProxied ? 'one @discordjs/proxy for every process' : 'a sliding window in Redis'}\n`,
);
process.stdout.write(
  '| processes | N | first text p50 | first text p95 | all answered | requests | busiest second | requests/s (of 50) | 429s | not whole |\n|---|---|---|---|---|---|---|---|---|---|\n',
);
for (const conversations of conversationCounts) {
  for (const processes of processCounts) {
    const figures = await runOnce(processes, conversations);
    rows.push(figures);
    const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    process.stdout.write(
      `| ${processes} | ${conversations} | ${seconds(figures.firstTextP50Ms)} | ${seconds(figures.firstTextP95Ms)} | ${seconds(figures.allAnsweredMs)} | ${figures.requests} | ${figures.busiestSecond} | ${figures.requestsPerSecond.toFixed(1)} | ${figures.rateLimited} | ${figures.unanswered} |\n`,
    );
  }
}
