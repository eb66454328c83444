import type OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { type FakeGateway, invalidJsonReply, startFakeGateway } from '../fakes/gateway/index.ts';
import { createSdkClient } from './sdk-client.ts';

describe('fake gateway: chat completions', () => {
  let fake: FakeGateway;
  let client: OpenAI;

  beforeAll(async () => {
    fake = await startFakeGateway({ models: { 'blind-model': { vision: false } } });
    client = createSdkClient(fake);
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.reset());

  it('answers a whole completion that quotes the last user text', async () => {
    const completion = await client.chat.completions.create({
      model: 'fake-model',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'First question' },
        { role: 'assistant', content: 'First answer' },
        { role: 'user', content: 'Hello there' },
      ],
    });

    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('fake-model');
    expect(Math.abs(completion.created - Date.now() / 1000)).toBeLessThan(60);
    expect(completion.choices).toHaveLength(1);
    const [choice] = completion.choices;
    expect(choice?.index).toBe(0);
    expect(choice?.finish_reason).toBe('stop');
    expect(choice?.message.role).toBe('assistant');
    expect(choice?.message.content).toMatch(/^You said: "Hello there"\./);
    expect(choice?.message.content).toContain('```ts\n');
    const usage = completion.usage;
    expect(usage?.prompt_tokens).toBeGreaterThan(0);
    expect(usage?.completion_tokens).toBeGreaterThan(0);
    expect(usage?.total_tokens).toBe((usage?.prompt_tokens ?? 0) + (usage?.completion_tokens ?? 0));
  });

  it('returns the queued text in each of n variants', async () => {
    fake.enqueue({ text: 'Exactly this.' });

    const completion = await client.chat.completions.create({
      model: 'fake-model',
      n: 3,
      messages: [{ role: 'user', content: 'Hi' }],
    });

    expect(completion.choices.map((choice) => [choice.index, choice.message.content])).toEqual([
      [0, 'Exactly this.'],
      [1, 'Exactly this.'],
      [2, 'Exactly this.'],
    ]);
  });

  it('reports finish_reason length and an overridden usage', async () => {
    fake.enqueue({
      text: 'Cut sho',
      finishReason: 'length',
      usage: { prompt_tokens: 100, completion_tokens: 7 },
    });

    const completion = await client.chat.completions.create({
      model: 'fake-model',
      max_tokens: 7,
      messages: [{ role: 'user', content: 'Tell me everything' }],
    });

    expect(completion.choices[0]?.finish_reason).toBe('length');
    expect(completion.usage).toEqual({ prompt_tokens: 100, completion_tokens: 7, total_tokens: 107 });
  });

  it('records each request with method, path, headers and parsed body', async () => {
    await client.chat.completions.create({
      model: 'fake-model',
      temperature: 0.5,
      messages: [{ role: 'user', content: 'Record me' }],
    });

    expect(fake.requests).toHaveLength(1);
    const [recorded] = fake.requests;
    expect(recorded?.method).toBe('POST');
    expect(recorded?.path).toBe('/api/v1/chat/completions');
    expect(recorded?.headers.authorization).toBe('Bearer test-key');
    expect(recorded?.headers['content-type']).toMatch(/^application\/json/);
    expect(recorded?.body).toEqual({
      model: 'fake-model',
      temperature: 0.5,
      messages: [{ role: 'user', content: 'Record me' }],
    });
  });

  it('reset() forgets requests and queued behaviours', async () => {
    fake.enqueue({ text: 'never used' });
    await client.chat.completions.create({ model: 'fake-model', messages: [{ role: 'user', content: 'a' }] });
    fake.enqueue({ text: 'dropped by reset' });

    fake.reset();
    const completion = await client.chat.completions.create({
      model: 'fake-model',
      messages: [{ role: 'user', content: 'after reset' }],
    });

    expect(fake.requests).toHaveLength(1);
    expect(completion.choices[0]?.message.content).toMatch(/^You said: "after reset"/);
  });

  it('replies with a JSON object by default in json_object mode', async () => {
    const completion = await client.chat.completions.create({
      model: 'fake-model',
      response_format: { type: 'json_object' },
      messages: [
        { role: 'system', content: 'Answer in Json.' },
        { role: 'user', content: 'What is up?' },
      ],
    });

    const content = completion.choices[0]?.message.content ?? '';
    expect(JSON.parse(content)).toEqual({ reply: 'You said: What is up?' });
  });

  it('replies with JSON that conforms to the json_schema by default', async () => {
    const summarySchema = z.object({
      title: z.string(),
      points: z.array(z.string()).min(2),
      sentiment: z.enum(['positive', 'neutral', 'negative']),
      confidence: z.number(),
      owner: z.object({ name: z.string(), email: z.email() }),
      dueDate: z.string().nullable(),
    });

    const completion = await client.chat.completions.create({
      model: 'fake-model',
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'summary', strict: true, schema: z.toJSONSchema(summarySchema) },
      },
      messages: [{ role: 'user', content: 'Summarize the thread.' }],
    });

    const parsed = summarySchema.parse(JSON.parse(completion.choices[0]?.message.content ?? ''));
    expect(parsed.points).toHaveLength(2);
    expect(parsed.sentiment).toBe('positive');
  });

  it('replies with content that is not valid JSON when asked to', async () => {
    fake.enqueue({ invalidJson: true });

    const completion = await client.chat.completions.create({
      model: 'fake-model',
      response_format: { type: 'json_object' },
      messages: [{ role: 'user', content: 'Give me JSON' }],
    });

    const content = completion.choices[0]?.message.content ?? '';
    expect(content).toBe(invalidJsonReply);
    expect(() => JSON.parse(content)).toThrow(SyntaxError);
  });

  it('accepts image parts in a user message and mentions them in the reply', async () => {
    const completion = await client.chat.completions.create({
      model: 'fake-model',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in these?' },
            { type: 'image_url', image_url: { url: 'https://cdn.example.com/screenshot.png' } },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          ],
        },
      ],
    });

    expect(completion.choices[0]?.message.content).toMatch(
      /^You said: "What is in these\?" and sent 2 images\./,
    );
  });

  it('refuses image input to a model without vision', async () => {
    await expect(
      client.chat.completions.create({
        model: 'blind-model',
        messages: [
          {
            role: 'user',
            content: [{ type: 'image_url', image_url: { url: 'https://cdn.example.com/a.png' } }],
          },
        ],
      }),
    ).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('does not support image input'),
    });
  });

  it('refuses an image data URI that is not base64', async () => {
    await expect(
      client.chat.completions.create({
        model: 'fake-model',
        messages: [
          { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png,rawbytes' } }] },
        ],
      }),
    ).rejects.toMatchObject({ status: 400, param: 'messages[0].content[0].image_url.url' });
  });
});
