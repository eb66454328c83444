import type OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeGateway, startFakeGateway } from '../fakes/gateway/index.ts';
import { collect, createSdkClient, rejectionOf } from './sdk-client.ts';

const webSearch = {
  type: 'function' as const,
  function: {
    name: 'web_search',
    description: 'Search the web',
    parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
  },
};

describe('fake gateway: function calling in the OpenAI shape', () => {
  let fake: FakeGateway;
  let client: OpenAI;

  beforeAll(async () => {
    fake = await startFakeGateway({ models: { 'no-tools-model': { tools: false } } });
    client = createSdkClient(fake);
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.reset());

  it('streams a scripted tool call as delta.tool_calls pieces, then finish_reason tool_calls', async () => {
    fake.enqueue({ toolCalls: [{ name: 'web_search', arguments: { query: 'tide tables Brest' } }] });
    const chunks = await collect(
      await client.chat.completions.create({
        model: 'fake-model',
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'tides in Brest?' }],
        tools: [webSearch],
      }),
    );
    const deltas = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
    expect(deltas[0]).toMatchObject({
      index: 0,
      type: 'function',
      function: { name: 'web_search', arguments: '' },
    });
    expect(deltas[0]?.id).toMatch(/^call_/);
    expect(deltas.slice(1).every((delta) => delta.id === undefined && delta.index === 0)).toBe(true);
    expect(JSON.parse(deltas.map((delta) => delta.function?.arguments ?? '').join(''))).toEqual({
      query: 'tide tables Brest',
    });
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('tool_calls');
    expect(chunks.at(-1)?.usage?.total_tokens).toBeGreaterThan(0);
  });

  it('streams the text a model writes before its calls first, in the same message', async () => {
    fake.enqueue({
      text: 'Let me look that up.',
      toolCalls: [{ name: 'web_search', arguments: { query: 'tides' } }],
    });
    const chunks = await collect(
      await client.chat.completions.create({
        model: 'fake-model',
        stream: true,
        messages: [{ role: 'user', content: 'tides?' }],
        tools: [webSearch],
      }),
    );
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    const firstCall = chunks.findIndex((chunk) => (chunk.choices[0]?.delta.tool_calls ?? []).length > 0);
    const lastText = chunks.findLastIndex((chunk) => (chunk.choices[0]?.delta.content ?? '') !== '');
    expect(text).toBe('Let me look that up.');
    expect(lastText).toBeLessThan(firstCall);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('takes the tool results back and answers; a tool message must answer a call', async () => {
    fake.enqueue({ toolCalls: [{ name: 'web_search', arguments: { query: 'q' } }] });
    fake.enqueue({ text: 'High tide at 14:05 [1].' });
    const first = await client.chat.completions.create({
      model: 'fake-model',
      messages: [{ role: 'user', content: 'tides?' }],
      tools: [webSearch],
    });
    const call = first.choices[0]?.message.tool_calls?.[0];
    expect(first.choices[0]).toMatchObject({ finish_reason: 'tool_calls', message: { content: null } });
    if (call?.type !== 'function') throw new Error('expected a function call');
    const answer = await client.chat.completions.create({
      model: 'fake-model',
      tools: [webSearch],
      messages: [
        { role: 'user', content: 'tides?' },
        { role: 'assistant', content: null, tool_calls: [call] },
        { role: 'tool', tool_call_id: call.id, content: '[1] Tide times: high tide 14:05' },
      ],
    });
    expect(answer.choices[0]?.message.content).toBe('High tide at 14:05 [1].');

    const orphan = await rejectionOf(
      client.chat.completions.create({
        model: 'fake-model',
        messages: [
          { role: 'user', content: 'tides?' },
          { role: 'tool', tool_call_id: 'call_unknown', content: 'results' },
        ],
      }),
    );
    expect(orphan).toMatchObject({ status: 400 });
  });

  it('refuses tools for a model without function calling', async () => {
    const refusal = await rejectionOf(
      client.chat.completions.create({
        model: 'no-tools-model',
        messages: [{ role: 'user', content: 'tides?' }],
        tools: [webSearch],
      }),
    );
    expect(refusal).toMatchObject({ status: 400, code: 'unsupported_parameter', param: 'tools' });
  });
});
