import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { createClient } from '@redis/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ATTR_PARLEY_LINK_REASON } from '../../src/tracing/span-attributes.ts';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord/index.ts';
import { type FakeGateway, startFakeGateway } from '../fakes/gateway/index.ts';
import { type BotProcess, startBotProcess } from '../support/bot-process.ts';

/**
 * Issue 38, a two-process turn: two real bot processes on one Redis and one fake Discord, each
 * exporting over OTLP/HTTP to a receiver in the test. A turn that one process answers while the
 * other still answers the turn before it, in the same channel, waits for the conversation's Redis
 * lock; the lock hands it the other process's trace context, and its turn span links to the turn it
 * waited for. Which process takes a message is whichever claims it first, so the test decides it:
 * the process that must not take a message is stopped (SIGSTOP) while it is sent.
 */
const redisUrl = process.env.REDIS_URL;
const apiKey = 'two-traces-key-0123456789';
const turnSpanName = 'invoke_agent parley';
let gateway: FakeGateway | undefined;
let discord: FakeDiscord | undefined;
let receiver: Server | undefined;
const bots: BotProcess[] = [];

afterEach(async () => {
  for (const bot of bots.splice(0)) {
    bot.kill('SIGCONT');
    bot.kill('SIGKILL');
    await bot.exited;
  }
  await Promise.all([gateway?.close(), discord?.close()]);
  await new Promise((resolve) => (receiver ? receiver.close(resolve) : resolve(undefined)));
});

/** A span as OTLP/HTTP JSON carries it (ids in hex), with the service that sent it. */
interface ExportedSpan {
  readonly service: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly links?: ReadonlyArray<{
    traceId: string;
    spanId: string;
    attributes?: ReadonlyArray<{ key: string; value: { stringValue?: string } }>;
  }>;
}

/** An OTLP/HTTP receiver (JSON, as the exporter sends it) that keeps every span it is sent. */
async function startReceiver(spans: ExportedSpan[]): Promise<string> {
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += String(chunk);
    });
    request.on('end', () => {
      for (const resourceSpans of JSON.parse(body).resourceSpans ?? []) {
        const service = resourceSpans.resource.attributes.find(
          (attribute: { key: string }) => attribute.key === ATTR_SERVICE_NAME,
        )?.value.stringValue;
        for (const scope of resourceSpans.scopeSpans) {
          for (const span of scope.spans) spans.push({ ...span, service });
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
}

describe.skipIf(redisUrl === undefined)(
  redisUrl === undefined
    ? 'a turn handed over between two processes (skipped: REDIS_URL is not set; run with REDIS_URL=redis://127.0.0.1:6379)'
    : 'a turn handed over between two processes',
  () => {
    it('the turn that waited for the other process links to the turn it waited for', async () => {
      const spans: ExportedSpan[] = [];
      const endpoint = await startReceiver(spans);
      gateway = await startFakeGateway({ apiKey });
      discord = await startFakeDiscord();
      const fakeDiscord = discord;
      const start = (serviceName: string) => {
        const bot = startBotProcess({
          environment: {
            GATEWAY_BASE_URL: gateway?.baseUrl ?? '',
            GATEWAY_API_KEY: apiKey,
            DISCORD_TOKEN: fakeDiscord.token,
            DISCORD_API_URL: fakeDiscord.apiUrl,
            DISCORD_GUILD_IDS: fakeDiscord.guildId,
            STORE_URL: redisUrl ?? '',
            OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
            OTEL_SERVICE_NAME: serviceName,
          },
        });
        bots.push(bot);
        return bot;
      };
      const [one, two] = [start('parley-one'), start('parley-two')];
      await Promise.all(
        [one, two].map((bot) => bot.waitForLog((line) => line.msg === 'parley running', 30_000)),
      );
      const channelId = fakeDiscord.textChannelIds[0] ?? '';
      const botMessages = () =>
        fakeDiscord.messages(channelId).filter((message) => message.author.id === fakeDiscord.bot.id);
      // The first turn's answer streams for a few seconds: the lock is held meanwhile.
      gateway.enqueue({
        text: 'The first answer is long and it takes its time to arrive here.',
        // About 5 s: process one still holds the lock once it is stopped, however loaded the machine.
        chunkSize: 2,
        delayBetweenChunksMs: 150,
      });
      gateway.enqueue({ text: 'The second answer.' });
      // Process one takes the first message: process two is stopped while it is sent.
      two.kill('SIGSTOP');
      fakeDiscord.sendUserMessage({ channelId, content: 'first question', mentionsBot: true });
      await fakeDiscord.waitFor(() => botMessages().length > 0, { timeoutMs: 15_000 });
      // Process two takes the second, while process one, stopped, holds the conversation's lock.
      two.kill('SIGCONT');
      one.kill('SIGSTOP');
      fakeDiscord.sendUserMessage({ channelId, content: 'second question', mentionsBot: true });
      const redis = createClient({ url: redisUrl ?? '' });
      await redis.connect();
      try {
        const queue = `parley:coordination:conversation:queue:discord:${fakeDiscord.guildId}:${channelId}`;
        // Queued for the lock: taken by process two, the only one running.
        await vi.waitFor(async () => expect(await redis.zCard(queue)).toBeGreaterThan(0), {
          timeout: 15_000,
          interval: 20,
        });
      } finally {
        redis.destroy();
      }
      one.kill('SIGCONT');
      await fakeDiscord.waitFor(
        () => botMessages().some((message) => message.content.startsWith('The second answer.')),
        { timeoutMs: 20_000 },
      );
      for (const bot of [one, two]) {
        await bot.waitForLog((line) => line.msg === 'reply finished', 10_000);
        bot.kill('SIGTERM');
      }
      for (const bot of [one, two]) expect((await bot.exited).code).toBe(0);

      const turnOf = (service: string) => {
        const turns = spans.filter((span) => span.service === service && span.name === turnSpanName);
        expect(turns, `${service} answered one turn`).toHaveLength(1);
        return turns[0] as ExportedSpan;
      };
      const first = turnOf('parley-one');
      const second = turnOf('parley-two');
      // Two traces, each from its own Discord message, the second leading to the first.
      expect(second.traceId).not.toBe(first.traceId);
      for (const turn of [first, second]) {
        const root = spans.find((span) => span.spanId === turn.parentSpanId);
        expect(root?.name).toBe('discord message');
        expect(root?.service).toBe(turn.service);
      }
      expect(second.links?.map((link) => ({ traceId: link.traceId, spanId: link.spanId }))).toEqual([
        { traceId: first.traceId, spanId: first.spanId },
      ]);
      expect(
        second.links?.[0]?.attributes?.find((attribute) => attribute.key === ATTR_PARLEY_LINK_REASON)?.value
          .stringValue,
      ).toBe('lock handed over');
      // Its wait for the lock is a span of its own turn.
      expect(
        spans.find((span) => span.name === 'conversation lock wait' && span.parentSpanId === second.spanId),
      ).toBeDefined();
    }, 90_000);
  },
);
