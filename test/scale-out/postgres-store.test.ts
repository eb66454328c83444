import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { postgresStoreWarning } from '../../src/config.ts';
import { createHistoryStore } from '../../src/conversation/history-store.ts';
import { createStore } from '../../src/state/create-store.ts';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord/index.ts';
import { type FakeGateway, startFakeGateway } from '../fakes/gateway/index.ts';
import { type BotProcess, startBotProcess } from '../support/bot-process.ts';

/**
 * The bot on STORE_URL=postgres://…: it says at start-up what Postgres does not share, answers, and
 * the next process finds the conversation in Postgres.
 */
const databaseUrl = process.env.DATABASE_URL;
const apiKey = 'postgres-test-key-0123456789';
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

function startBot(): BotProcess {
  const bot = startBotProcess({
    environment: {
      GATEWAY_BASE_URL: gateway?.baseUrl ?? '',
      GATEWAY_API_KEY: apiKey,
      DISCORD_TOKEN: discord?.token ?? '',
      DISCORD_API_URL: discord?.apiUrl ?? '',
      DISCORD_GUILD_IDS: discord?.guildId ?? '',
      STORE_URL: databaseUrl ?? '',
    },
  });
  bots.push(bot);
  return bot;
}

describe.skipIf(databaseUrl === undefined)(
  databaseUrl === undefined
    ? 'the bot on a Postgres store (skipped: DATABASE_URL is not set; run with DATABASE_URL=postgres://postgres@127.0.0.1:5432/test)'
    : 'the bot on a Postgres store',
  () => {
    it('warns that locks, budgets and dedupe stay in one process, answers, and keeps history for the next process', async () => {
      gateway = await startFakeGateway({ apiKey });
      discord = await startFakeDiscord();
      const fakeDiscord = discord;
      const channelId = fakeDiscord.textChannelIds[0] ?? '';
      const first = startBot();
      await first.waitForLog((line) => line.msg === 'parley running', 20_000);
      expect(first.output()).toContain(`parley: warning: ${postgresStoreWarning}`);
      gateway.enqueue({ text: 'Kept in Postgres.' });
      fakeDiscord.sendUserMessage({ channelId, content: 'remember this', mentionsBot: true });
      await fakeDiscord.waitFor(
        () =>
          fakeDiscord.messages(channelId).find((message) => message.content.includes('Kept in Postgres.')),
        { timeoutMs: 15_000 },
      );
      first.kill('SIGTERM');
      await first.exited;

      const second = startBot();
      await second.waitForLog((line) => line.msg === 'parley running', 20_000);
      gateway.enqueue({ text: 'Still here.' });
      fakeDiscord.sendUserMessage({ channelId, content: 'and now?', mentionsBot: true });
      await fakeDiscord.waitFor(
        () => fakeDiscord.messages(channelId).find((message) => message.content.includes('Still here.')),
        { timeoutMs: 15_000 },
      );
      // The second process sent the first exchange to the model: it read it from Postgres.
      const lastRequest = gateway.requests
        .filter((request) => request.path.endsWith('/chat/completions'))
        .at(-1);
      expect(JSON.stringify(lastRequest?.body)).toContain('Kept in Postgres.');

      const logger = pino({ level: 'silent' });
      const store = createStore({ storeUrl: databaseUrl ?? '', namespace: 'history', logger });
      try {
        const history = createHistoryStore({ store, maxTurns: 50, logger });
        const key = `discord:${fakeDiscord.guildId}:${channelId}`;
        // The reply is shown before it is recorded: wait for the record.
        let turns = await history.load(key);
        for (let attempt = 0; turns.length < 4 && attempt < 100; attempt += 1) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          turns = await history.load(key);
        }
        expect(turns.map((turn) => turn.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
        // Tests share the server: leave nothing behind.
        await store.delete(`discord:${fakeDiscord.guildId}:${channelId}`);
      } finally {
        await store.disconnect();
      }
    }, 60_000);
  },
);
