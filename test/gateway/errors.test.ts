import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GatewayError, type GatewayErrorKind } from '../../src/gateway/gateway-error.ts';
import { type GatewayUnderTest, startGatewayUnderTest, testApiKey } from '../support/gateway-under-test.ts';

let subject: GatewayUnderTest;
beforeAll(async () => {
  subject = await startGatewayUnderTest();
});
afterAll(() => subject.close());
beforeEach(() => subject.fake.reset());

const hello = [{ role: 'user' as const, content: 'hello' }];

async function errorOf(promise: Promise<unknown>): Promise<GatewayError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    return error as GatewayError;
  }
  throw new Error('expected a GatewayError');
}

describe('gateway errors become one typed family with a short message for people', () => {
  it.each<
    [string, { status: number; body?: object | string; headers?: Record<string, string> }, GatewayErrorKind]
  >([
    ['401 OpenAI-style', { status: 401 }, 'authentication'],
    ['403', { status: 403, body: { error: { message: 'forbidden' } } }, 'authentication'],
    [
      '402 balance',
      { status: 402, body: { error: { message: 'Insufficient balance', type: 'billing' } } },
      'insufficient-balance',
    ],
    [
      '400 naming the balance',
      {
        status: 400,
        body: { error: { message: 'insufficient credits on key', code: 'insufficient_quota' } },
      },
      'insufficient-balance',
    ],
    [
      '404 model',
      { status: 404, body: { error: { message: 'no such model', code: 'model_not_found' } } },
      'unknown-model',
    ],
    [
      '400 parameter',
      { status: 400, body: { error: { message: 'temperature out of range', param: 'temperature' } } },
      'invalid-request',
    ],
    ['422 parameter', { status: 422, body: { message: 'bad field' } }, 'invalid-request'],
    ['429 with Retry-After', { status: 429, headers: { 'retry-after': '7' } }, 'rate-limited'],
    ['500 HTML page', { status: 500, body: '<html><body>Bad gateway</body></html>' }, 'server-error'],
    ['503 bare string', { status: 503, body: 'upstream overloaded' }, 'server-error'],
    ['504', { status: 504 }, 'timeout'],
  ])('%s', async (_name, error, kind) => {
    subject.fake.enqueue({ error });
    const failure = await errorOf(
      subject.gateway.chat({ hold: subject.hold, maxTokens: 100, model: 'chat-model', messages: hello }),
    );
    expect(failure.kind).toBe(kind);
    expect(failure.status).toBe(error.status);
    expect(failure.userMessage.length).toBeLessThan(120);
    expect(failure.userMessage).not.toMatch(/<html|\bstack\b|\n\s+at |Error:/);
    if (kind === 'rate-limited') {
      expect(failure.retryAfterMs).toBe(7_000);
      expect(failure.userMessage).toMatch(/7 s/);
    }
  });

  it('a wrong key is an authentication error, and the key is in no log line or message', async () => {
    subject.fake.enqueue({
      error: { status: 401, body: { error: { message: `Incorrect API key provided: ${testApiKey}` } } },
    });
    const failure = await errorOf(
      subject.gateway.chat({ hold: subject.hold, maxTokens: 100, model: 'chat-model', messages: hello }),
    );
    expect(failure.kind).toBe('authentication');
    expect(failure.userMessage).not.toContain(testApiKey);
    const { createCapturedLogger } = await import('../support/capture-logger.ts');
    const { logger, output } = createCapturedLogger([testApiKey]);
    logger.warn({ err: failure, kind: failure.kind }, 'reply did not complete');
    expect(output()).toContain('authentication');
    expect(output()).not.toContain(testApiKey);
  });

  it('an unreachable gateway is a connection error', async () => {
    const closed = await startGatewayUnderTest();
    await closed.fake.close();
    const failure = await errorOf(
      closed.gateway.chat({ hold: closed.hold, maxTokens: 100, model: 'chat-model', messages: hello }),
    );
    expect(failure.kind).toBe('connection');
  });

  it('a stream refused before its first token is a typed error too', async () => {
    subject.fake.enqueue({ error: { status: 404 } });
    const stream = subject.gateway.chatStream({
      hold: subject.hold,
      maxTokens: 100,
      model: 'missing-model',
      messages: hello,
    });
    const failure = await errorOf(
      (async () => {
        for await (const _event of stream) {
          // draining
        }
      })(),
    );
    expect(failure.kind).toBe('unknown-model');
  });
});

describe('retries', () => {
  it('retries a 429 honouring Retry-After before any text, then streams the reply once', async () => {
    const retrying = await startGatewayUnderTest({ maxRetries: 2 });
    try {
      retrying.fake.enqueue({ error: { status: 429, headers: { 'retry-after-ms': '50' } } });
      retrying.fake.enqueue({ error: { status: 502, body: 'bad gateway' } });
      retrying.fake.enqueue({ text: 'finally here' });
      let text = '';
      for await (const event of retrying.gateway.chatStream({
        hold: retrying.hold,
        maxTokens: 100,
        model: 'chat-model',
        messages: hello,
      })) {
        if (event.type === 'text-delta') text += event.text;
      }
      expect(text).toBe('finally here');
      expect(retrying.fake.requests).toHaveLength(3);
    } finally {
      await retrying.close();
    }
  });

  it('never retries a 400: the same request would fail the same way', async () => {
    const retrying = await startGatewayUnderTest({ maxRetries: 2 });
    try {
      retrying.fake.enqueue({ error: { status: 400 } });
      await errorOf(
        retrying.gateway.chat({ hold: retrying.hold, maxTokens: 100, model: 'chat-model', messages: hello }),
      );
      expect(retrying.fake.requests).toHaveLength(1);
    } finally {
      await retrying.close();
    }
  });
});

describe('a gateway address of the wrong shape', () => {
  const withoutVersion = (correct: string) => correct.replace(/\/api\/v1$/, '');

  it('is told apart from an unknown model, naming the URL tried and the shape expected', async () => {
    const misconfigured = await startGatewayUnderTest({ baseUrlOf: withoutVersion });
    try {
      const failure = await errorOf(
        misconfigured.gateway.chat({
          hold: misconfigured.hold,
          maxTokens: 100,
          model: 'chat-model',
          messages: hello,
        }),
      );
      const triedUrl = `${withoutVersion(misconfigured.fake.baseUrl)}/chat/completions`;
      expect(failure.kind).toBe('wrong-url');
      expect(failure.status).toBe(404);
      expect(failure.userMessage).toContain(`POST ${triedUrl}`);
      expect(failure.userMessage).toMatch(/GATEWAY_BASE_URL/);
      expect(failure.userMessage).toMatch(
        /ending in the API version, like https:\/\/gateway\.example\/api\/v1/,
      );
      expect(failure.message).toContain(triedUrl);

      const streamFailure = await errorOf(
        (async () => {
          for await (const _event of misconfigured.gateway.chatStream({
            hold: misconfigured.hold,
            maxTokens: 100,
            model: 'chat-model',
            messages: hello,
          })) {
            // draining
          }
        })(),
      );
      expect(streamFailure.kind).toBe('wrong-url');
      const imageFailure = await errorOf(
        misconfigured.gateway.generateImages({
          hold: misconfigured.hold,
          model: 'plain-image-model',
          prompt: 'a fox',
          count: 1,
        }),
      );
      expect(imageFailure.kind).toBe('wrong-url');
      expect(imageFailure.userMessage).toContain(
        `${withoutVersion(misconfigured.fake.baseUrl)}/images/generations`,
      );
    } finally {
      await misconfigured.close();
    }
  });

  it('is recognised when a 404 is a web page rather than the gateway error JSON', async () => {
    subject.fake.enqueue({
      error: { status: 404, body: '<html><body><h1>404 Not Found</h1></body></html>' },
    });
    const failure = await errorOf(
      subject.gateway.chat({ hold: subject.hold, maxTokens: 100, model: 'chat-model', messages: hello }),
    );
    expect(failure.kind).toBe('wrong-url');
    expect(failure.userMessage).toContain(`POST ${subject.fake.baseUrl}/chat/completions`);
  });

  it('leaves a 404 that is the gateway error JSON about a model an unknown model', async () => {
    subject.fake.enqueue({ error: { status: 404 } });
    const failure = await errorOf(
      subject.gateway.chat({ hold: subject.hold, maxTokens: 100, model: 'no-such-model', messages: hello }),
    );
    expect(failure.kind).toBe('unknown-model');
  });
});
