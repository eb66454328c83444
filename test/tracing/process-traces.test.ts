import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord/index.ts';
import { type FakeGateway, startFakeGateway } from '../fakes/gateway/index.ts';
import { type BotProcess, startBotProcess } from '../support/bot-process.ts';

/**
 * Issue 38, the way an operator runs it: `node bin/parley.ts` on (fake) Discord with
 * OTEL_EXPORTER_OTLP_ENDPOINT pointing at an OTLP/HTTP receiver in the test. A reply's spans arrive
 * there (the last ones sent at SIGTERM), and its log lines name its trace.
 */
const apiKey = 'traces-process-key-0123456789';
let gateway: FakeGateway | undefined;
let discord: FakeDiscord | undefined;
let receiver: Server | undefined;
let bot: BotProcess | undefined;

afterEach(async () => {
  bot?.kill('SIGKILL');
  await bot?.exited;
  await Promise.all([gateway?.close(), discord?.close()]);
  await new Promise((resolve) => (receiver ? receiver.close(resolve) : resolve(undefined)));
});

interface ExportedSpan {
  readonly traceId: string;
  readonly name: string;
}

describe('a running parley with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it('exports each reply as a trace its log lines name', async () => {
    const exports: Array<{ serviceName: unknown; spans: ExportedSpan[] }> = [];
    receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += String(chunk);
      });
      request.on('end', () => {
        const parsed = JSON.parse(body);
        for (const resourceSpans of parsed.resourceSpans ?? []) {
          exports.push({
            serviceName: resourceSpans.resource.attributes.find(
              (attribute: { key: string }) => attribute.key === ATTR_SERVICE_NAME,
            )?.value.stringValue,
            spans: resourceSpans.scopeSpans.flatMap((scope: { spans: ExportedSpan[] }) => scope.spans),
          });
        }
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver?.listen(0, '127.0.0.1', resolve));
    gateway = await startFakeGateway({ apiKey });
    discord = await startFakeDiscord();
    const workDirectory = mkdtempSync(join(tmpdir(), 'parley-traces-'));
    bot = startBotProcess({
      workingDirectory: workDirectory,
      environment: {
        GATEWAY_BASE_URL: gateway.baseUrl,
        GATEWAY_API_KEY: apiKey,
        DISCORD_TOKEN: discord.token,
        DISCORD_API_URL: discord.apiUrl,
        DISCORD_GUILD_IDS: discord.guildId,
        STORE_URL: `sqlite://${join(workDirectory, 'parley.sqlite')}`,
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`,
        OTEL_SERVICE_NAME: 'parley-process-test',
      },
    });
    await bot.waitForLog((line) => line.msg === 'parley running');
    gateway.enqueue({ text: 'Spans on their way.' });
    const channelId = discord.textChannelIds[0] ?? '';
    discord.sendUserMessage({ channelId, content: 'trace this', mentionsBot: true });
    const finished = await bot.waitForLog((line) => line.msg === 'reply finished', 15_000);
    expect(finished.trace_id).toMatch(/^[0-9a-f]{32}$/);
    bot.kill('SIGTERM');
    expect((await bot.exited).code).toBe(0);
    const spans = exports.flatMap((exported) => exported.spans);
    expect(exports.every((exported) => exported.serviceName === 'parley-process-test')).toBe(true);
    const names = spans.filter((span) => span.traceId === finished.trace_id).map((span) => span.name);
    expect(names).toEqual(expect.arrayContaining(['discord message', 'invoke_agent parley']));
    expect(names.some((name) => name.startsWith('chat '))).toBe(true);
  });
});
