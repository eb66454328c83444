import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { afterEach, describe, expect, it } from 'vitest';
import { createConnectorFetch } from '../../src/connectors/connector-fetch.ts';
import { BlockedUrlError } from '../../src/net/guarded-fetch.ts';
import { installTracing } from '../../src/tracing/install-tracing.ts';

/**
 * The connectors' fetch: the server's own origin trusted, anything else https and public only, and
 * a credential never carried along a redirect to another origin.
 */
const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('the connectors’ fetch', () => {
  it('follows a redirect to another origin without the credential', async () => {
    const seen: IncomingHttpHeaders[] = [];
    const elsewhere = await listen((request, response) => {
      seen.push(request.headers);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    const origin = await listen((_request, response) => {
      response.writeHead(307, { location: `${elsewhere}/token` }).end();
    });
    const fetchFn = createConnectorFetch({
      server: 'crm',
      serverUrl: `${origin}/mcp`,
      requestTimeoutMs: 5_000,
      // The test's second server is on loopback: trusted as an operator trusts their own.
      trustedOrigins: [elsewhere],
    });
    const response = await fetchFn(`${origin}/token`, {
      method: 'POST',
      headers: { authorization: 'Bearer secret-token', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(200);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.authorization).toBeUndefined();
    expect(seen[0]?.['content-type']).toBe('application/json');
  });

  it('refuses a place the server’s metadata names on a private address, and plain http elsewhere', async () => {
    const origin = await listen((_request, response) => {
      response.writeHead(200).end();
    });
    const fetchFn = createConnectorFetch({
      server: 'crm',
      serverUrl: `${origin}/mcp`,
      requestTimeoutMs: 5_000,
    });
    await expect(fetchFn('https://10.0.0.7/token', { method: 'POST', body: '' })).rejects.toMatchObject({
      reason: 'private-address',
    });
    await expect(fetchFn('http://auth.example/token')).rejects.toBeInstanceOf(BlockedUrlError);
  });

  it('sends the W3C traceparent to the MCP server itself and not to its authorization server', async () => {
    const seen: Array<{ path: string | undefined; traceparent: string | undefined }> = [];
    const handler: Parameters<typeof createServer>[1] = (request, response) => {
      seen.push({ path: request.url, traceparent: request.headers.traceparent as string | undefined });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    };
    const authorizationServer = await listen(handler);
    const origin = await listen(handler);
    const tracing = installTracing({
      serviceName: 'parley-test',
      spanProcessors: [new SimpleSpanProcessor({ exporter: new InMemorySpanExporter() })],
      isContentCaptured: false,
      secrets: [],
    });
    try {
      const fetchFn = createConnectorFetch({
        server: 'crm',
        serverUrl: `${origin}/mcp`,
        requestTimeoutMs: 5_000,
        trustedOrigins: [authorizationServer],
      });
      await trace.getTracer('parley-test').startActiveSpan('execute_tool crm_search', async (span) => {
        await fetchFn(`${origin}/mcp`, { method: 'POST', body: '{}' });
        await fetchFn(`${authorizationServer}/token`, {
          method: 'POST',
          body: new URLSearchParams({ a: 'b' }),
        });
        span.end();
      });
    } finally {
      await tracing.stop();
    }
    expect(seen.find((request) => request.path === '/mcp')?.traceparent).toMatch(
      /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/,
    );
    expect(seen.find((request) => request.path === '/token')?.traceparent).toBeUndefined();
  });
});
