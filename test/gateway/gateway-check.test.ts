import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkGateway, isReservedExampleHost } from '../../src/gateway/gateway-check.ts';
import { type FakeGateway, startFakeGateway } from '../fakes/gateway/index.ts';

/** The start-up check against the fake gateway over a real socket, and against what is not one. */
const apiKey = 'check-key-0123456789';
let fake: FakeGateway;

beforeAll(async () => {
  fake = await startFakeGateway({ apiKey });
});
afterAll(() => fake.close());

const check = (baseUrl: string, key = apiKey) =>
  checkGateway({ baseUrl, apiKey: key, model: 'chat-model', timeoutMs: 3_000 });

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('the gateway check at start-up', () => {
  it('passes a reachable gateway with the right key, and takes no scripted reply from it', async () => {
    fake.reset();
    fake.enqueue({ text: 'kept for the first real message' });
    expect(await check(fake.baseUrl)).toEqual({ kind: 'ok' });
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]?.body).toEqual({ model: 'chat-model', messages: [] });
  });

  it('refuses a reserved example host without sending it anything', async () => {
    const result = await check('https://gateway.example/api/v1');
    expect(result.kind).toBe('fatal');
    expect(result).toMatchObject({
      message: expect.stringContaining('gateway.example is a reserved example name'),
    });
    for (const host of ['gateway.example', 'api.example.com', 'x.test', 'a.invalid', 'example.org']) {
      expect(isReservedExampleHost(host), host).toBe(true);
    }
    for (const host of ['127.0.0.1', 'localhost', 'gateway.example.io', 'api.openai.com']) {
      expect(isReservedExampleHost(host), host).toBe(false);
    }
  });

  it('names a key the gateway refuses, with the host', async () => {
    const result = await check(fake.baseUrl, 'wrong-key');
    const host = new URL(fake.baseUrl).host;
    expect(result).toEqual({
      kind: 'fatal',
      message: `GATEWAY_BASE_URL ${fake.baseUrl}: ${host} refused GATEWAY_API_KEY (401). Copy the key again from the gateway console.`,
    });
  });

  it('names a base URL without the API version by the 404 it gets', async () => {
    const origin = fake.baseUrl.replace(/\/api\/v1$/, '');
    expect(await check(origin)).toEqual({
      kind: 'fatal',
      message: `GATEWAY_BASE_URL ${origin}: POST ${origin}/chat/completions answered 404. Set GATEWAY_BASE_URL to the base URL ending in the API version, such as https://host/api/v1.`,
    });
  });

  it('names a refused connection with its address, as a warning', async () => {
    const port = await closedPort();
    expect(await check(`http://127.0.0.1:${port}/api/v1`)).toEqual({
      kind: 'warning',
      message: `GATEWAY_BASE_URL http://127.0.0.1:${port}/api/v1: 127.0.0.1:${port} refused the connection (nothing listens there); replies will fail until the gateway runs.`,
    });
  });

  it('names a host name that does not resolve', async () => {
    const result = await check('http://no-such-host.parley-check.internal/api/v1');
    expect(result.kind === 'fatal' ? result.message : result).toMatch(
      /the host name no-such-host\.parley-check\.internal (was not found|could not be looked up)/,
    );
  });

  it('names a TLS failure: https to a server that speaks plain HTTP', async () => {
    const result = await check(fake.baseUrl.replace('http://', 'https://'));
    expect(result.kind).toBe('fatal');
    expect(result).toMatchObject({ message: expect.stringContaining('the TLS connection to 127.0.0.1') });
  });

  it('gives up after its time limit with a warning', async () => {
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    try {
      const result = await checkGateway({
        baseUrl: `http://127.0.0.1:${port}/api/v1`,
        apiKey,
        model: 'chat-model',
        timeoutMs: 300,
      });
      expect(result).toMatchObject({
        kind: 'warning',
        message: expect.stringContaining('did not answer within 0.3 s'),
      });
    } finally {
      silent.close();
    }
  });
});
