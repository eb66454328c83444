import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ChatStreamEvent } from '../../src/gateway/chat-types.ts';
import { GatewayError } from '../../src/gateway/gateway-error.ts';
import { type GatewayUnderTest, startGatewayUnderTest } from '../support/gateway-under-test.ts';

/**
 * streamChat against a server whose every byte the test writes: what the fake gateway, which keeps
 * to the reference, never sends (an SSE comment, a last event without its blank line, a body cut
 * mid-line), and when the client lets the connection go.
 */
type Respond = (response: ServerResponse) => void;

let respond: Respond = (response) => response.end();
let closedAtMs: number[] = [];
let server: Server;
let baseUrl = '';
let subject: GatewayUnderTest | undefined;
const timers = new Set<NodeJS.Timeout>();

beforeAll(async () => {
  server = createServer((request: IncomingMessage, response: ServerResponse) => {
    request.resume();
    request.on('end', () => {
      // This test's list: a connection of the test before may close late, into the list it had.
      const closes = closedAtMs;
      response.on('close', () => closes.push(Date.now()));
      respond(response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
});

afterEach(async () => {
  for (const timer of timers) clearInterval(timer);
  timers.clear();
  server.closeAllConnections();
  closedAtMs = [];
  await subject?.close();
  subject = undefined;
});

afterAll(() => {
  server.close();
});

function chunkData(delta: object, finishReason: string | null, usage?: object): string {
  return JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'chat-model',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
    ...(usage ? { usage } : {}),
  });
}

function startEventStream(response: ServerResponse): void {
  // No keep-alive: each test closes every connection after it, and fetch's pool is shared across tests.
  response.writeHead(200, { 'content-type': 'text/event-stream', connection: 'close' });
  response.flushHeaders();
}

function every(intervalMs: number, action: () => void): void {
  timers.add(setInterval(action, intervalMs));
}

async function gatewayWith(options: { timeoutMs?: number; firstByteTimeoutMs?: number } = {}) {
  subject = await startGatewayUnderTest({ ...options, baseUrlOf: () => baseUrl });
  return subject;
}

function streamOf(gateway: GatewayUnderTest, signal?: AbortSignal): AsyncIterable<ChatStreamEvent> {
  return gateway.gateway.chatStream({
    hold: gateway.hold,
    model: 'chat-model',
    messages: [{ role: 'user', content: 'hi' }],
    maxTokens: 50,
    ...(signal ? { signal } : {}),
  });
}

async function drain(events: AsyncIterable<ChatStreamEvent>) {
  const seen: ChatStreamEvent[] = [];
  try {
    for await (const event of events) seen.push(event);
    return { seen, error: undefined };
  } catch (error) {
    return { seen, error };
  }
}

const textOf = (events: readonly ChatStreamEvent[]) =>
  events.map((event) => (event.type === 'text-delta' ? event.text : '')).join('');

async function waitUntil(isDone: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!isDone() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  return isDone();
}

describe('chatStream on the wire', () => {
  it('counts a last event whose blank line never came, as the SDK did, when the body ends', async () => {
    respond = (response) => {
      startEventStream(response);
      response.write(`data: ${chunkData({ role: 'assistant', content: 'Hello' }, null)}\n\n`);
      response.end(
        `data: ${chunkData({}, 'stop', { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 })}\n`,
      );
    };
    const { seen, error } = await drain(streamOf(await gatewayWith()));
    expect(error).toBeUndefined();
    expect(textOf(seen)).toBe('Hello');
    expect(seen.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop', usage: { totalTokens: 4 } });
  });

  it('ends as interrupted, keeping the text, when the body stops in the middle of an event', async () => {
    respond = (response) => {
      startEventStream(response);
      response.write(`data: ${chunkData({ role: 'assistant', content: 'Hello' }, null)}\n\n`);
      response.end('data: {"id":"chatcmpl-1","choi');
    };
    const { seen, error } = await drain(streamOf(await gatewayWith()));
    expect(textOf(seen)).toBe('Hello');
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).kind).toBe('stream-interrupted');
  });

  it('times out a stream that sends only keep-alive comments after its first chunk', async () => {
    respond = (response) => {
      startEventStream(response);
      response.write(`data: ${chunkData({ role: 'assistant', content: '' }, null)}\n\n`);
      every(50, () => response.write(': keep-alive\n\n'));
    };
    const startedAtMs = Date.now();
    const { error } = await drain(streamOf(await gatewayWith({ timeoutMs: 300 })));
    expect((error as GatewayError).kind).toBe('timeout');
    expect(Date.now() - startedAtMs).toBeLessThan(2_000);
  });

  it('times out a stream that sends only comments before any chunk, at the first-chunk limit', async () => {
    respond = (response) => {
      startEventStream(response);
      every(50, () => response.write(': PROCESSING\n\n'));
    };
    const startedAtMs = Date.now();
    const { error } = await drain(streamOf(await gatewayWith({ timeoutMs: 5_000, firstByteTimeoutMs: 200 })));
    expect((error as GatewayError).kind).toBe('timeout');
    expect(Date.now() - startedAtMs).toBeLessThan(2_000);
  });

  for (const stop of ['the caller aborts', 'the first-chunk timeout fires', 'nothing stops it'] as const) {
    it(`lets the connection go when its consumer leaves at response-started and ${stop}`, async () => {
      respond = (response) => startEventStream(response); // then silence, as a slow model
      const gateway = await gatewayWith({ timeoutMs: 5_000, firstByteTimeoutMs: 100 });
      const controller = new AbortController();
      const events = streamOf(gateway, controller.signal)[Symbol.asyncIterator]();
      expect((await events.next()).value).toEqual({ type: 'response-started' });
      if (stop === 'the caller aborts') controller.abort();
      if (stop === 'the first-chunk timeout fires') await new Promise((resolve) => setTimeout(resolve, 300));
      await events.return?.(undefined);
      expect(await waitUntil(() => closedAtMs.length > 0, 1_000)).toBe(true);
    });
  }
});
