import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeGateway, startFakeGateway } from '../fakes/gateway/index.ts';
import { createSdkClient, rejectionOf } from './sdk-client.ts';

const messages = [{ role: 'user' as const, content: 'Hello' }];

describe('fake gateway: errors', () => {
  let fake: FakeGateway;
  let client: OpenAI;

  beforeAll(async () => {
    fake = await startFakeGateway({ models: { 'no-schema-model': { jsonSchema: false } } });
    client = createSdkClient(fake);
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.reset());

  async function apiErrorOf(promise: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
    const error = await rejectionOf(promise);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    return error as InstanceType<typeof OpenAI.APIError>;
  }

  it('answers 401 with an OpenAI-style body for a wrong key', async () => {
    const error = await apiErrorOf(
      createSdkClient(fake, 'wrong-key').chat.completions.create({ model: 'fake-model', messages }),
    );

    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(error.status).toBe(401);
    expect(error.code).toBe('invalid_api_key');
    expect(error.error).toMatchObject({
      message: 'Incorrect API key provided.',
      type: 'invalid_request_error',
    });
  });

  it('answers 401 when the Authorization header is missing, and still records the request', async () => {
    const response = await fetch(`${fake.baseUrl}/images/generations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'image-model', prompt: 'a cat' }),
    });

    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({
      error: { type: 'invalid_request_error', code: 'missing_api_key' },
    });
    expect(fake.requests.map((request) => [request.path, request.headers.authorization])).toEqual([
      ['/api/v1/images/generations', undefined],
    ]);
  });

  it.each([
    { status: 402, code: 'insufficient_quota' },
    { status: 429, code: 'rate_limit_exceeded' },
    { status: 500, code: 'server_error' },
    { status: 503, code: 'server_error' },
  ])('sends a default OpenAI-style body for a forced $status', async ({ status, code }) => {
    fake.enqueue({ error: { status } });

    const error = await apiErrorOf(client.chat.completions.create({ model: 'fake-model', messages }));

    expect(error.status).toBe(status);
    expect(error.code).toBe(code);
  });

  it('passes a forced body and retry-after header through to the SDK error', async () => {
    fake.enqueue({
      error: {
        status: 429,
        body: { error: { message: 'Slow down', type: 'rate_limit_error', code: 'too_many' } },
        headers: { 'retry-after': '7' },
      },
    });

    const error = await apiErrorOf(client.chat.completions.create({ model: 'fake-model', messages }));

    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error.headers?.get('retry-after')).toBe('7');
    expect(error.message).toBe('429 Slow down');
    expect(error.code).toBe('too_many');
  });

  it('sends a raw HTML error page as is', async () => {
    const page = '<html><body><h1>502 Bad Gateway</h1></body></html>';
    fake.enqueue({ error: { status: 502, body: page } });

    const error = await apiErrorOf(client.chat.completions.create({ model: 'fake-model', messages }));

    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect(error.status).toBe(502);
    expect(error.error).toBeUndefined();
    expect(error.message).toBe(`502 ${page}`);
    expect(error.headers?.get('content-type')).toMatch(/^text\/html/);
  });

  it('refuses a stream request with a forced error before any event is sent', async () => {
    fake.enqueue({ error: { status: 503, headers: { 'retry-after': '1' } } });

    const error = await apiErrorOf(
      client.chat.completions.create({ model: 'fake-model', stream: true, messages }),
    );

    expect(error.status).toBe(503);
    expect(error.headers?.get('retry-after')).toBe('1');
  });

  it('refuses n greater than 1 together with stream', async () => {
    const error = await apiErrorOf(
      client.chat.completions.create({ model: 'fake-model', stream: true, n: 2, messages }),
    );

    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.param).toBe('n');
  });

  it('refuses json_schema for a model that does not support it, and accepts it elsewhere', async () => {
    const request = {
      messages,
      response_format: {
        type: 'json_schema' as const,
        json_schema: { name: 'answer', strict: true, schema: { type: 'object', properties: {} } },
      },
    };

    const error = await apiErrorOf(client.chat.completions.create({ model: 'no-schema-model', ...request }));
    const accepted = await client.chat.completions.create({ model: 'fake-model', ...request });

    expect(error.status).toBe(400);
    expect(error.message).toMatch(/json_schema is unsupported/);
    expect(error.code).toBe('unsupported_parameter');
    expect(accepted.choices[0]?.message.content).toBe('{}');
  });

  it('refuses json_object unless a system or user message says JSON', async () => {
    const withoutWord = client.chat.completions.create({
      model: 'fake-model',
      response_format: { type: 'json_object' },
      messages: [
        { role: 'user', content: 'Give me the data' },
        { role: 'assistant', content: 'Here is JSON' },
      ],
    });
    const error = await apiErrorOf(withoutWord);
    const accepted = await client.chat.completions.create({
      model: 'fake-model',
      response_format: { type: 'json_object' },
      messages: [{ role: 'system', content: 'Reply with a json object.' }, ...messages],
    });

    expect(error.status).toBe(400);
    expect(error.message).toMatch(/json/);
    expect(accepted.choices[0]?.message.content).toMatch(/^\{/);
  });

  it('refuses roles other than system, user, assistant and tool', async () => {
    const error = await apiErrorOf(
      client.chat.completions.create({
        model: 'fake-model',
        messages: [{ role: 'developer', content: 'Be nice' }],
      }),
    );

    expect(error.status).toBe(400);
    expect(error.param).toBe('messages[0].role');
  });

  it('refuses content parts of an unknown type', async () => {
    const error = await apiErrorOf(
      client.chat.completions.create({
        model: 'fake-model',
        messages: [
          { role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }] },
        ],
      }),
    );

    expect(error.status).toBe(400);
    expect(error.param).toBe('messages[0].content');
  });

  it('refuses image parts outside user messages', async () => {
    // The SDK's types already forbid this, so the request is sent by hand.
    const response = await fetch(`${fake.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer test-key', 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'fake-model',
        messages: [
          {
            role: 'system',
            content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }],
          },
        ],
      }),
    });

    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: {
        message: expect.stringMatching(/only allowed in user messages/),
        param: 'messages[0].content',
      },
    });
  });

  it('refuses a body that is not JSON', async () => {
    const response = await fetch(`${fake.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer test-key', 'content-type': 'application/json' },
      body: '{"model": ',
    });

    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { type: 'invalid_request_error' } });
    expect(fake.requests[0]?.body).toBe('{"model": ');
  });

  it('answers 404 for a path outside the reference', async () => {
    const error = await apiErrorOf(client.models.list());

    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect(error.code).toBe('unknown_url');
  });

  it('gives queued behaviours to the matching endpoint in order', async () => {
    fake.enqueue({ endpoint: 'images', error: { status: 500 } });
    fake.enqueue({ text: 'first' });
    fake.enqueue({ text: 'second' });

    const first = await client.chat.completions.create({ model: 'fake-model', messages });
    const second = await client.chat.completions.create({ model: 'fake-model', messages });
    const imageError = await apiErrorOf(client.images.generate({ model: 'image-model', prompt: 'a cat' }));

    expect(first.choices[0]?.message.content).toBe('first');
    expect(second.choices[0]?.message.content).toBe('second');
    expect(imageError.status).toBe(500);
  });
});

describe('fake gateway: a fixed model list', () => {
  let fake: FakeGateway;

  beforeAll(async () => {
    fake = await startFakeGateway({ knownModels: ['known-model'], models: { 'image-model': {} } });
  });
  afterAll(() => fake.close());

  it('answers 404 model_not_found for an unknown model on both endpoints', async () => {
    const client = createSdkClient(fake);

    const chatError = await rejectionOf(client.chat.completions.create({ model: 'other-model', messages }));
    const imageError = await rejectionOf(client.images.generate({ model: 'other-model', prompt: 'a cat' }));
    const known = await client.chat.completions.create({ model: 'known-model', messages });
    const listed = await client.images.generate({ model: 'image-model', prompt: 'a cat' });

    expect(chatError).toBeInstanceOf(OpenAI.NotFoundError);
    expect(chatError).toMatchObject({ status: 404, code: 'model_not_found', param: 'model' });
    expect(imageError).toMatchObject({ status: 404, code: 'model_not_found' });
    expect(known.model).toBe('known-model');
    expect(listed.data).toHaveLength(1);
  });
});
