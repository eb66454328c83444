import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord/index.ts';
import { type FakeGateway, startFakeGateway } from '../fakes/gateway/index.ts';
import { type ParleyProcess, startParley } from '../support/parley-process.ts';
import { startTcpProxy } from '../support/tcp-proxy.ts';

const redisUrl = process.env.REDIS_URL;

/**
 * GET /healthz, /readyz and /metrics of the real process (`npm start` on Discord), over HTTP,
 * against the fake Discord and the fake gateway; the metrics are read while a reply streams.
 */
const apiKey = 'operations-key-0123456789';
let gateway: FakeGateway;
let discord: FakeDiscord;
let parley: ParleyProcess | undefined;
let workDirectory: string;

/** An IPv4 address of this machine other than loopback, if it has one. */
const nonLoopbackAddress = Object.values(networkInterfaces())
  .flat()
  .find((entry) => entry !== undefined && entry.family === 'IPv4' && !entry.internal)?.address;

beforeEach(async () => {
  gateway = await startFakeGateway({ apiKey });
  discord = await startFakeDiscord();
  workDirectory = mkdtempSync(join(tmpdir(), 'parley-operations-'));
  writeFileSync(
    join(workDirectory, 'models.json'),
    JSON.stringify({ models: { 'chat-model': { vision: false } } }),
  );
});
afterEach(async () => {
  await parley?.stop();
  parley = undefined;
  await Promise.all([discord.close(), gateway.close()]);
});

function startBot(environment: Record<string, string>): ParleyProcess {
  parley = startParley({
    environment: {
      GATEWAY_BASE_URL: gateway.baseUrl,
      GATEWAY_API_KEY: apiKey,
      CHAT_MODEL: 'chat-model',
      MODEL_CAPABILITIES_FILE: join(workDirectory, 'models.json'),
      STORE_URL: `sqlite://${join(workDirectory, 'parley.sqlite')}`,
      HEALTH_PORT: '0',
      ...environment,
    },
  });
  return parley;
}

/** The port from the start-up log line (HEALTH_PORT=0 takes a free one). */
async function healthUrlOf(bot: ParleyProcess): Promise<string> {
  await bot.waitForOutput('health and metrics at', { stream: 'stderr' });
  const line = bot
    .stderr()
    .split('\n')
    .find((text) => text.includes('health and metrics at'));
  return `http://127.0.0.1:${JSON.parse(line ?? '{}').port}`;
}

/** The same, read from LOG_FILE (the terminal chat keeps its log out of the terminal). */
async function portFromLog(logFile: string): Promise<number> {
  const line = await until(
    async () =>
      (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '')
        .split('\n')
        .find((text) => text.includes('health and metrics at')),
    (found) => found !== undefined,
  );
  return JSON.parse(line ?? '{}').port;
}

async function get(url: string): Promise<{ status: number; type: string; text: string }> {
  const response = await fetch(url);
  return {
    status: response.status,
    type: response.headers.get('content-type') ?? '',
    text: await response.text(),
  };
}

/** The value of one sample in Prometheus' text format; 0 when the series is not there yet. */
function sample(metrics: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([label, value]) => `${label}="${value}"`);
  const line = metrics
    .split('\n')
    .find(
      (text) =>
        (text.startsWith(`${name} `) || text.startsWith(`${name}{`)) &&
        wanted.every((part) => text.includes(part)),
    );
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

async function until<Value>(read: () => Promise<Value>, isDone: (value: Value) => boolean): Promise<Value> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (isDone(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('health, readiness and metrics of a running bot', () => {
  it('answers /healthz, is ready once Discord is connected, and counts a reply as it streams', {
    timeout: 30_000,
  }, async () => {
    const bot = startBot({
      DISCORD_TOKEN: discord.token,
      DISCORD_API_URL: discord.apiUrl,
      DISCORD_GUILD_IDS: discord.guildId,
    });
    const health = await healthUrlOf(bot);
    expect(await get(`${health}/healthz`)).toMatchObject({ status: 200, text: '{"status":"ok"}' });

    const ready = await until(
      () => get(`${health}/readyz`),
      (answer) => answer.status === 200,
    );
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.text)).toEqual({
      status: 'ready',
      checks: { store: 'ok', discord: 'connected' },
    });

    const text = 'One, two, three, four, five, six, seven, eight: a reply that takes a moment to stream.';
    gateway.enqueue({ text, chunkSize: 6, delayBetweenChunksMs: 150 });
    const before = (await get(`${health}/metrics`)).text;
    expect(sample(before, 'parley_replies_total', { status: 'complete' })).toBe(0);
    const channelId = discord.textChannelIds[0] ?? '';
    discord.sendUserMessage({ channelId, content: 'count to eight', mentionsBot: true });
    const botMessages = () =>
      discord.messages(channelId).filter((message) => message.author.id === discord.bot.id);
    await discord.waitFor(() => botMessages()[0], { timeoutMs: 10_000 });

    const during = await get(`${health}/metrics`);
    expect(during.status).toBe(200);
    expect(during.type).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(sample(during.text, 'parley_active_streams', { platform: 'discord' })).toBe(1);
    expect(sample(during.text, 'parley_reply_first_text_seconds_count', { platform: 'discord' })).toBe(1);
    expect(sample(during.text, 'parley_gateway_requests_total', { operation: 'chat-stream' })).toBe(1);
    expect(sample(during.text, 'parley_replies_total', { status: 'complete' })).toBe(0);
    expect(
      sample(during.text, 'parley_platform_requests_total', {
        platform: 'discord',
        route_class: 'POST /channels/:id/messages',
      }),
    ).toBeGreaterThanOrEqual(1);

    await discord.waitFor(() => botMessages().find((message) => message.content === text), {
      timeoutMs: 10_000,
    });
    const after = (
      await until(
        () => get(`${health}/metrics`),
        (answer) =>
          sample(answer.text, 'parley_replies_total', { platform: 'discord', status: 'complete' }) === 1,
      )
    ).text;
    expect(sample(after, 'parley_replies_total', { platform: 'discord', status: 'complete' })).toBe(1);
    expect(sample(after, 'parley_active_streams', { platform: 'discord' })).toBe(0);
    expect(sample(after, 'parley_reply_final_lag_seconds_count', { platform: 'discord' })).toBe(1);
    expect(
      sample(after, 'parley_model_tokens_total', { model: 'chat-model', direction: 'output' }),
    ).toBeGreaterThan(0);
    expect(
      sample(after, 'parley_model_tokens_total', { model: 'chat-model', direction: 'input' }),
    ).toBeGreaterThan(0);
    expect(
      sample(after, 'parley_request_queue_wait_seconds_count', { priority: 'first-post' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(after, 'parley_platform_requests_total', {
        platform: 'discord',
        route_class: 'PATCH /channels/:id/messages/:id',
      }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(after, 'parley_store_operation_seconds_count', {
        backend: 'sqlite',
        operation: 'get',
        result: 'ok',
      }),
    ).toBeGreaterThan(0);
    expect(sample(after, 'parley_platform_connected', { platform: 'discord' })).toBe(1);
    expect(after).toContain('process_cpu_seconds_total');

    // Discord goes away: not ready, and the answer says why.
    await discord.close();
    const notReady = await until(
      () => get(`${health}/readyz`),
      (answer) => answer.status === 503,
    );
    expect(notReady.status).toBe(503);
    expect(JSON.parse(notReady.text)).toMatchObject({
      status: 'not ready',
      reason: expect.stringMatching(/^discord: /),
    });
    // With Discord unreachable, discord.js keeps reconnecting after a SIGTERM shutdown and the process
    // does not exit (the shutdown deadline in bin/parley.ts is another change); it is killed here.
    await bot.stop('SIGKILL');
  });

  // An unreachable store at start is refused at once (test/first-run); one that stops answering
  // later makes the process not ready, with the reason.
  it.skipIf(redisUrl === undefined)(
    `is not ready while the store does not answer, with the reason as JSON${redisUrl ? '' : ' (skipped: REDIS_URL is not set)'}`,
    async () => {
      const target = new URL(redisUrl ?? 'redis://127.0.0.1:6379');
      const proxy = await startTcpProxy({
        targetHost: target.hostname,
        targetPort: Number(target.port || 6379),
      });
      try {
        const bot = startBot({
          STORE_URL: `redis://127.0.0.1:${proxy.port}`,
          LOG_FILE: join(workDirectory, 'parley.log'),
        });
        const health = `http://127.0.0.1:${await portFromLog(join(workDirectory, 'parley.log'))}`;
        expect((await get(`${health}/readyz`)).status).toBe(200);
        // Redis stops answering: the connection stays up, nothing comes back.
        proxy.freeze();
        expect((await get(`${health}/healthz`)).status).toBe(200);
        const answer = await get(`${health}/readyz`);
        expect(answer.status).toBe(503);
        const body = JSON.parse(answer.text);
        expect(body.status).toBe('not ready');
        expect(body.reason).toMatch(/^store: (unreachable|no answer within)/);
        expect(body.checks).toMatchObject({ store: expect.any(String) });
        proxy.thaw();
        bot.endInput();
        expect(await bot.exited).toBe(0);
      } finally {
        await proxy.close();
      }
    },
  );

  describe(`where it listens${nonLoopbackAddress ? '' : ' (skipped: this machine has no IPv4 address besides loopback)'}`, () => {
    it.skipIf(nonLoopbackAddress === undefined)(
      "by default on loopback only: /metrics is not reachable on the machine's other address",
      async () => {
        const logFile = join(workDirectory, 'parley.log');
        const bot = startBot({ LOG_FILE: logFile });
        const port = await portFromLog(logFile);
        expect((await get(`http://127.0.0.1:${port}/metrics`)).status).toBe(200);
        await expect(fetch(`http://${nonLoopbackAddress}:${port}/metrics`)).rejects.toMatchObject({
          cause: { code: 'ECONNREFUSED' },
        });
        expect(JSON.parse(lineOf(logFile, 'health and metrics at')).host).toBe('127.0.0.1');
        bot.endInput();
        expect(await bot.exited).toBe(0);
      },
    );

    it.skipIf(nonLoopbackAddress === undefined)(
      'on the address HEALTH_HOST names, and there alone',
      async () => {
        const logFile = join(workDirectory, 'parley.log');
        const bot = startBot({ LOG_FILE: logFile, HEALTH_HOST: nonLoopbackAddress ?? '' });
        const port = await portFromLog(logFile);
        expect(JSON.parse(lineOf(logFile, 'health and metrics at')).host).toBe(nonLoopbackAddress);
        expect((await get(`http://${nonLoopbackAddress}:${port}/healthz`)).status).toBe(200);
        await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toMatchObject({
          cause: { code: 'ECONNREFUSED' },
        });
        bot.endInput();
        expect(await bot.exited).toBe(0);
      },
    );
  });

  it('refuses to start on an address the machine does not have, and says which setting to change', async () => {
    // 192.0.2.0/24 is TEST-NET-1 (RFC 5737); .254 is no interface here (this machine may hold .2).
    const bot = startBot({ HEALTH_HOST: '192.0.2.254' });
    expect(await bot.exited).toBe(1);
    expect(bot.stderr()).toContain(
      'parley cannot start: health server on HEALTH_HOST 192.0.2.254, HEALTH_PORT 0: this machine has no such address.',
    );
  });
});

function lineOf(logFile: string, text: string): string {
  return (
    readFileSync(logFile, 'utf8')
      .split('\n')
      .find((line) => line.includes(text)) ?? '{}'
  );
}
