import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { interruptedByRestartNote } from '../../commands/finish-orphaned-replies.ts';
import { createHistoryStore } from '../../src/conversation/history-store.ts';
import { createStore } from '../../src/state/create-store.ts';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord/index.ts';
import { type FakeGateway, startFakeGateway } from '../fakes/gateway/index.ts';
import { type BotProcess, startBotProcess } from '../support/bot-process.ts';

/**
 * kill -9 of one of two processes in the middle of a streamed reply: its conversation lock expires
 * within LOCK_TTL_MS, the other process answers the next message of that conversation, and finishes
 * the orphaned reply (its text, a note, Regenerate) once its heartbeat is ORPHAN_AFTER_MS old.
 */
const redisUrl = process.env.REDIS_URL;
const apiKey = 'kill-one-key-0123456789';
const lockTtlMs = 3_000;
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

function startBot(fakeDiscord: FakeDiscord, fakeGateway: FakeGateway): BotProcess {
  const bot = startBotProcess({
    environment: {
      GATEWAY_BASE_URL: fakeGateway.baseUrl,
      GATEWAY_API_KEY: apiKey,
      DISCORD_TOKEN: fakeDiscord.token,
      DISCORD_API_URL: fakeDiscord.apiUrl,
      DISCORD_GUILD_IDS: fakeDiscord.guildId,
      STORE_URL: redisUrl ?? '',
      LOCK_TTL_MS: String(lockTtlMs),
      ORPHAN_AFTER_MS: '2000',
      // The process that did not take a message says so at debug: that is how the test tells them apart.
      LOG_LEVEL: 'debug',
    },
  });
  bots.push(bot);
  return bot;
}

async function step<Value>(name: string, waiting: Promise<Value>): Promise<Value> {
  return waiting.catch((error: unknown) => {
    const outputs = bots.map((bot, index) => `--- bot ${index + 1}:\n${bot.output().slice(-2500)}`);
    throw new Error(`${name}: ${String(error)}\n${outputs.join('\n')}`);
  });
}

describe.skipIf(redisUrl === undefined)(
  redisUrl === undefined
    ? 'kill -9 one of two processes (skipped: REDIS_URL is not set; run with REDIS_URL=redis://127.0.0.1:6379)'
    : 'kill -9 one of two processes',
  () => {
    it('the other answers the next message once the lock expires, and finishes the orphaned reply', async () => {
      gateway = await startFakeGateway({ apiKey });
      discord = await startFakeDiscord();
      const fakeDiscord = discord;
      const fakeGateway = gateway;
      const bots = [startBot(fakeDiscord, fakeGateway), startBot(fakeDiscord, fakeGateway)];
      await step(
        'both running',
        Promise.all(bots.map((bot) => bot.waitForLog((line) => line.msg === 'parley running', 30_000))),
      );
      const channelId = fakeDiscord.textChannelIds[0] ?? '';
      fakeGateway.enqueue({ text: 'tick '.repeat(400), chunkSize: 10, delayBetweenChunksMs: 100 });
      const firstId = fakeDiscord.sendUserMessage({ channelId, content: 'count slowly', mentionsBot: true });
      const streaming = await step(
        'the first reply streaming',
        fakeDiscord.waitFor(
          () =>
            fakeDiscord
              .messages(channelId)
              .find((message) => message.author.id === fakeDiscord.bot.id && message.revisions.length >= 3),
          { timeoutMs: 15_000 },
        ),
      );
      const skipped = (bot: BotProcess) =>
        bot.logLines.some(
          (line) =>
            line.msg === 'message already taken by this or another process' && line.messageId === firstId,
        );
      const streamer = bots.find((bot) => !skipped(bot));
      const survivor = bots.find((bot) => bot !== streamer);
      if (!streamer || !survivor) throw new Error('could not tell which process streams');
      streamer.kill('SIGKILL');
      await streamer.exited;
      const killedAtMs = Date.now();
      const shownAtDeath = fakeDiscord.message(streaming.id)?.content ?? '';

      fakeGateway.enqueue({ text: 'Second answer.' });
      fakeDiscord.sendUserMessage({ channelId, content: 'and the next one', mentionsBot: true });
      await step(
        'the next message answered by the other process',
        fakeDiscord.waitFor(
          () => fakeDiscord.messages(channelId).find((message) => message.content.includes('Second answer.')),
          { timeoutMs: lockTtlMs + 15_000 },
        ),
      );
      // It waited for the dead process's lock, no longer than its ttl (and the time to answer).
      expect(Date.now() - killedAtMs).toBeLessThan(lockTtlMs + 8_000);

      const finished = await step(
        'the orphan finished by the other process',
        fakeDiscord.waitFor(
          () => {
            const message = fakeDiscord.message(streaming.id);
            const isFinished =
              message?.content.endsWith(`_${interruptedByRestartNote}_`) &&
              JSON.stringify(message.components).includes('Regenerate');
            return isFinished ? message : undefined;
          },
          { timeoutMs: 20_000 },
        ),
      );
      expect(finished.content).toBe(`${shownAtDeath}\n\n_${interruptedByRestartNote}_`);
      expect(JSON.stringify(finished.components)).toContain('Regenerate');
      expect(JSON.stringify(finished.components)).not.toContain('Stop');
      await step(
        'the survivor says it finished the orphan',
        survivor.waitForLog((line) => line.msg === 'finished replies interrupted by a restart', 10_000),
      );

      const logger = pino({ level: 'silent' });
      const store = createStore({ storeUrl: redisUrl ?? '', namespace: 'history', logger });
      try {
        const history = createHistoryStore({ store, maxTurns: 50, logger });
        const key = `discord:${fakeDiscord.guildId}:${channelId}`;
        let turns = await history.load(key);
        for (let attempt = 0; turns.length < 4 && attempt < 50; attempt += 1) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          turns = await history.load(key);
        }
        // Both exchanges are kept, the orphaned one marked as interrupted: no turn lost.
        expect(
          turns
            .filter((turn) => turn.role === 'user')
            .map((turn) => turn.text)
            .join(' | '),
        ).toMatch(/count slowly.*\| .*and the next one|and the next one.*\| .*count slowly/);
        expect(turns.filter((turn) => turn.role === 'assistant' && turn.isInterrupted === true)).toHaveLength(
          1,
        );
        expect(turns.some((turn) => turn.role === 'assistant' && turn.text === 'Second answer.')).toBe(true);
        await history.reset(key);
      } finally {
        await store.disconnect();
      }
    }, 90_000);
  },
);
