import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { ATTR_GEN_AI_TOOL_NAME } from '@opentelemetry/semantic-conventions/incubating';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InstalledTracing, installTracing } from '../../src/tracing/install-tracing.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';
import {
  type HttpEverything,
  startHttpEverything,
  waitUntil,
  writeToolsFile,
} from '../support/mcp-test-servers.ts';

/**
 * Issue 38: a Streamable HTTP MCP server is sent the W3C `traceparent` of the tool call's span, so
 * its own spans join the reply's trace. server-everything (the real one from npm, over Streamable
 * HTTP) behind a loopback relay that notes each request's headers; the real bot on the fakes.
 */
const exporter = new InMemorySpanExporter();
let tracing: InstalledTracing;
let everything: HttpEverything;
let relay: http.Server;
let under: DiscordUnderTest;
const seen: Array<{ body: string; traceparent: string | undefined }> = [];

beforeAll(async () => {
  tracing = installTracing({
    serviceName: 'parley-test',
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
    isContentCaptured: false,
    secrets: [],
  });
  everything = await startHttpEverything();
  const target = new URL(everything.url);
  relay = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      seen.push({
        body: body.toString('utf8'),
        traceparent: request.headers.traceparent as string | undefined,
      });
      const forwarded = http.request(
        {
          host: target.hostname,
          port: target.port,
          path: request.url,
          method: request.method,
          headers: request.headers,
        },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        },
      );
      forwarded.on('error', () => response.destroy());
      forwarded.end(body);
    });
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  under = await startDiscordUnderTest({
    CHAT_MODEL: 'tools-model',
    TOOLS_FILE: writeToolsFile({
      everything: { url: `http://127.0.0.1:${(relay.address() as AddressInfo).port}/mcp` },
    }),
  });
}, 30_000);
afterAll(async () => {
  await under.close();
  relay.closeAllConnections();
  await new Promise((resolve) => relay.close(resolve));
  await everything.close();
  await tracing.stop();
});

describe('traceparent to a Streamable HTTP MCP server', () => {
  it('goes with the tool call, naming the execute_tool span as its parent', async () => {
    await waitUntil(() => under.app.toolbox.all().some((tool) => tool.name === 'everything_echo'));
    under.gateway.enqueue({
      toolCalls: [{ name: 'everything_echo', arguments: { message: 'hello traces' } }],
    });
    under.gateway.enqueue({ text: 'It echoed.' });
    under.discord.sendUserMessage({
      channelId: under.generalChannelId,
      content: 'echo it',
      mentionsBot: true,
    });
    const toolSpan = await under.discord.waitFor(() =>
      exporter
        .getFinishedSpans()
        .find((span) => span.attributes[ATTR_GEN_AI_TOOL_NAME] === 'everything_echo'),
    );
    const call = seen.find((request) => request.body.includes('"tools/call"'));
    const { traceId, spanId } = toolSpan.spanContext();
    expect(call?.traceparent).toBe(`00-${traceId}-${spanId}-01`);
  });
});
