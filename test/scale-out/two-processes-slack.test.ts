import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createHistoryStore } from '../../src/conversation/history-store.ts';
import { createStore } from '../../src/state/create-store.ts';
import { type FakeGateway, modelChatRequests, startFakeGateway } from '../fakes/gateway/index.ts';
import { appMention, type FakeSlack, startFakeSlack } from '../fakes/slack/index.ts';
import { type BotProcess, countLogLines, startBotProcess } from '../support/bot-process.ts';

/**
 * Slack over HTTP behind a load balancer: two real bot processes on one Redis, every event delivered
 * to one process and, as a retry with the same event id (X-Slack-Retry-Num: 1), to the other at the
 * same moment. 50 threads get 4 mentions each in quick succession: each is answered once, and each
 * thread's history keeps the order the mentions were written in, and the two processes together
 * draw no 429 from the workspace's per-method limits.
 */
const redisUrl = process.env.REDIS_URL;
const apiKey = 'two-slack-key-0123456789';
const threadCount = 50;
const mentionsPerThread = 4;
let gateway: FakeGateway | undefined;
let slack: FakeSlack | undefined;
const bots: BotProcess[] = [];

afterEach(async () => {
  for (const bot of bots.splice(0)) {
    bot.kill('SIGKILL');
    await bot.exited;
  }
  await Promise.all([gateway?.close(), slack?.close()]);
});

async function startBot(fakeSlack: FakeSlack, fakeGateway: FakeGateway): Promise<string> {
  const bot = startBotProcess({
    environment: {
      GATEWAY_BASE_URL: fakeGateway.baseUrl,
      GATEWAY_API_KEY: apiKey,
      SLACK_BOT_TOKEN: fakeSlack.botToken,
      SLACK_SIGNING_SECRET: fakeSlack.signingSecret,
      SLACK_API_URL: fakeSlack.apiUrl,
      PORT: '0',
      STORE_URL: redisUrl ?? '',
      // Every event reaches both processes at once on two shared cores (see the Discord test).
      LOCK_ORDER_WINDOW_MS: '1500',
    },
  });
  bots.push(bot);
  const listening = await bot.waitForLog(
    (line) => line.mode === 'http' && typeof line.url === 'string',
    30_000,
  );
  return String(listening.url).replace('0.0.0.0', '127.0.0.1');
}

async function step<Value>(name: string, waiting: Promise<Value>): Promise<Value> {
  return waiting.catch((error: unknown) => {
    const outputs = bots.map((bot, index) => `--- bot ${index + 1}:\n${bot.output().slice(-2000)}`);
    throw new Error(`${name}: ${String(error)}\n${outputs.join('\n')}`);
  });
}

const askText = (thread: number, index: number) => `s-${thread}-${index}`;

describe.skipIf(redisUrl === undefined)(
  redisUrl === undefined
    ? 'two bot processes on Slack (skipped: REDIS_URL is not set; run with REDIS_URL=redis://127.0.0.1:6379)'
    : 'two bot processes on Slack',
  () => {
    it(`answers ${threadCount * mentionsPerThread} mentions delivered to both processes once each, in order`, async () => {
      gateway = await startFakeGateway({
        apiKey,
        replyTextFor: (request) => {
          const asked = JSON.stringify(request.body)
            .match(/s-\d+-\d+/g)
            ?.at(-1);
          return asked === undefined ? undefined : `Answer to ${asked}.`;
        },
      });
      slack = await startFakeSlack();
      const fakeSlack = slack;
      const fakeGateway = gateway;
      const urls = await step(
        'both processes listening',
        Promise.all([startBot(fakeSlack, fakeGateway), startBot(fakeSlack, fakeGateway)]),
      );
      const suffix = randomBytes(3).toString('hex').toUpperCase();
      const channels = Array.from(
        { length: threadCount },
        (_, thread) => `C${suffix}${String(thread).padStart(3, '0')}`,
      );
      const threadTsOf: string[] = [];
      const deliveries: Promise<unknown>[] = [];
      for (let index = 1; index <= mentionsPerThread; index += 1) {
        for (const [thread, channel] of channels.entries()) {
          const event = appMention({
            channel,
            text: askText(thread, index),
            ...(index === 1 ? {} : { threadTs: threadTsOf[thread] }),
          });
          if (index === 1) threadTsOf[thread] = String(event.ts);
          const eventId = `Ev${suffix}${thread}x${index}`;
          const [first, second] = (thread + index) % 2 === 0 ? urls : [urls[1], urls[0]];
          deliveries.push(fakeSlack.deliverEvent({ event, eventId, url: first }));
          deliveries.push(
            fakeSlack.deliverEvent({ event, eventId, url: second, retryNum: 1, retryReason: 'http_timeout' }),
          );
        }
      }
      const answered = (thread: number, index: number) =>
        fakeSlack
          .messages(channels[thread] ?? '', threadTsOf[thread])
          .filter((message) => JSON.stringify(message).includes(`Answer to ${askText(thread, index)}.`));
      await step(
        'every mention answered',
        fakeSlack.waitFor(
          () =>
            channels.every((_, thread) =>
              Array.from({ length: mentionsPerThread }, (_, index) => index + 1).every(
                (index) => answered(thread, index).length > 0,
              ),
            ),
          120_000,
        ),
      );
      await Promise.allSettled(deliveries);
      for (const [thread] of channels.entries()) {
        for (let index = 1; index <= mentionsPerThread; index += 1) {
          expect(answered(thread, index), `${askText(thread, index)} answered once`).toHaveLength(1);
        }
      }
      const chatRequests = modelChatRequests(fakeGateway.requests);
      expect(chatRequests).toHaveLength(threadCount * mentionsPerThread);

      const logger = pino({ level: 'silent' });
      const store = createStore({ storeUrl: redisUrl ?? '', namespace: 'history', logger });
      const history = createHistoryStore({ store, maxTurns: 50, logger });
      try {
        for (const [thread, channel] of channels.entries()) {
          const key = `slack:${fakeSlack.workspace.teamId}:${channel}:${threadTsOf[thread]}`;
          let turns = await history.load(key);
          for (let attempt = 0; turns.length < mentionsPerThread * 2 && attempt < 100; attempt += 1) {
            await new Promise((resolve) => setTimeout(resolve, 100));
            turns = await history.load(key);
          }
          const texts = turns.map((turn) =>
            turn.role === 'user' ? (turn.text.match(/s-\d+-\d+/)?.[0] ?? turn.text) : turn.text,
          );
          expect(texts, `history of thread ${thread}`).toEqual(
            Array.from({ length: mentionsPerThread }, (_, index) => [
              askText(thread, index + 1),
              `Answer to ${askText(thread, index + 1)}.`,
            ]).flat(),
          );
          await history.reset(key);
        }
      } finally {
        await store.disconnect();
      }
      const expected = threadCount * mentionsPerThread;
      expect(await countLogLines({ bots, msg: 'reply finished', expected })).toBe(expected);
      // Slack counts each method per app and workspace: the two processes spend one budget between them.
      expect(fakeSlack.rateLimitedCount()).toBe(0);
    }, 240_000);
  },
);
