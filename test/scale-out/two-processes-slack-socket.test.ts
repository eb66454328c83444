import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeGateway, startFakeGateway } from '../fakes/gateway/index.ts';
import { appMention, type FakeSlack, startFakeSlack } from '../fakes/slack/index.ts';
import { type BotProcess, countLogLines, startBotProcess } from '../support/bot-process.ts';

/**
 * Slack over Socket Mode with two processes of one app: each holds a connection of its own (Slack
 * allows several), and Slack sends each event to one of them and its retry to any (see the fake's
 * `connectionId`). 20 threads get 3 mentions each, every one delivered to one process and retried to
 * the other at once: each is acked by both and answered once, in the order written, with no 429.
 */
const redisUrl = process.env.REDIS_URL;
const apiKey = 'socket-slack-key-0123456789';
const threadCount = 20;
const mentionsPerThread = 3;
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

const askText = (thread: number, index: number) => `k-${thread}-${index}`;

describe.skipIf(redisUrl === undefined)(
  redisUrl === undefined
    ? 'two bot processes on Slack Socket Mode (skipped: REDIS_URL is not set; run with REDIS_URL=redis://127.0.0.1:6379)'
    : 'two bot processes on Slack Socket Mode',
  () => {
    it(`answers ${threadCount * mentionsPerThread} mentions spread over both connections, and their retries, once each`, async () => {
      gateway = await startFakeGateway({
        apiKey,
        replyTextFor: (request) => {
          const asked = JSON.stringify(request.body)
            .match(/k-\d+-\d+/g)
            ?.at(-1);
          return asked === undefined ? undefined : `Answer to ${asked}.`;
        },
      });
      slack = await startFakeSlack();
      const fakeSlack = slack;
      for (let index = 0; index < 2; index += 1) {
        const bot = startBotProcess({
          environment: {
            GATEWAY_BASE_URL: gateway.baseUrl,
            GATEWAY_API_KEY: apiKey,
            SLACK_BOT_TOKEN: fakeSlack.botToken,
            SLACK_APP_TOKEN: fakeSlack.appToken,
            SLACK_SIGNING_SECRET: fakeSlack.signingSecret,
            SLACK_API_URL: fakeSlack.apiUrl,
            STORE_URL: redisUrl ?? '',
            LOCK_ORDER_WINDOW_MS: '1500',
          },
        });
        bots.push(bot);
        // One after the other, so each connection is known to belong to one process.
        await bot.waitForLog(
          (line) => String(line.msg).includes('Socket Mode (SLACK_APP_TOKEN is set)'),
          30_000,
        );
      }
      const connectionIds = fakeSlack.socketConnections
        .filter((connection) => connection.closedAtMs === undefined)
        .map((connection) => connection.id);
      expect(connectionIds).toHaveLength(2);
      const [firstConnection, secondConnection] = connectionIds as [number, number];

      const suffix = randomBytes(3).toString('hex').toUpperCase();
      const channels = Array.from({ length: threadCount }, (_, thread) => `C${suffix}S${thread}`);
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
          const eventId = `Ev${suffix}${thread}k${index}`;
          const [first, second] =
            (thread + index) % 2 === 0
              ? [firstConnection, secondConnection]
              : [secondConnection, firstConnection];
          deliveries.push(fakeSlack.deliverEvent({ mode: 'socket', event, eventId, connectionId: first }));
          deliveries.push(
            fakeSlack.deliverEvent({
              mode: 'socket',
              event,
              eventId,
              connectionId: second,
              retryNum: 1,
              retryReason: 'timeout',
            }),
          );
        }
      }
      const answersIn = (thread: number) =>
        fakeSlack
          .messages(channels[thread] ?? '', threadTsOf[thread])
          .map((message) => JSON.stringify(message).match(/Answer to (k-\d+-\d+)\./)?.[1])
          .filter((asked) => asked !== undefined);
      await fakeSlack.waitFor(
        () => channels.every((_, thread) => answersIn(thread).length >= mentionsPerThread),
        60_000,
      );
      await Promise.all(deliveries);
      for (const [thread] of channels.entries()) {
        // Once each, and in the order the mentions were written.
        expect(answersIn(thread), `thread ${thread}`).toEqual(
          Array.from({ length: mentionsPerThread }, (_, index) => askText(thread, index + 1)),
        );
      }
      const expected = threadCount * mentionsPerThread;
      // The line comes after the reply's last write and its settlement: on two loaded cores (CI runs
      // test files side by side) the last of 60 may come seconds after its answer showed.
      expect(await countLogLines({ bots, msg: 'reply finished', expected, withinMs: 20_000 })).toBe(expected);
      // Which process answers is whichever claims the event first (every event reached both
      // connections, each delivery acked); on two shared cores one process may take nearly all.
      expect(fakeSlack.rateLimitedCount()).toBe(0);
    }, 120_000);
  },
);
