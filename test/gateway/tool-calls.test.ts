import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChatStreamEvent } from '../../src/gateway/chat-types.ts';
import { type GatewayUnderTest, startGatewayUnderTest } from '../support/gateway-under-test.ts';

const lookUp = {
  name: 'web_search',
  description: 'Search the web',
  parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
};

describe('the gateway client: function calling, streamed', () => {
  let subject: GatewayUnderTest;
  beforeAll(async () => {
    subject = await startGatewayUnderTest();
  });
  afterAll(() => subject.close());
  beforeEach(() => subject.fake.reset());

  it('joins streamed tool_calls deltas into whole calls, and sends results back as tool messages', async () => {
    subject.fake.enqueue({
      toolCalls: [
        { name: 'web_search', arguments: { query: 'first question, asked at some length' } },
        { name: 'web_search', arguments: { query: 'second' } },
      ],
    });
    const events: ChatStreamEvent[] = [];
    for await (const event of subject.gateway.chatStream({
      hold: subject.hold,
      maxTokens: 100,
      model: 'chat-model',
      messages: [{ role: 'user', content: 'two searches please' }],
      tools: [lookUp],
    })) {
      events.push(event);
    }
    const calls = events.find((event) => event.type === 'tool-calls');
    expect(
      calls?.type === 'tool-calls' && calls.calls.map((call) => [call.name, JSON.parse(call.arguments)]),
    ).toEqual([
      ['web_search', { query: 'first question, asked at some length' }],
      ['web_search', { query: 'second' }],
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool-calls' });

    const [first, second] = calls?.type === 'tool-calls' ? calls.calls : [];
    subject.fake.enqueue({ text: 'Both answered.' });
    let text = '';
    for await (const event of subject.gateway.chatStream({
      hold: subject.hold,
      maxTokens: 100,
      model: 'chat-model',
      tools: [lookUp],
      messages: [
        { role: 'user', content: 'two searches please' },
        { role: 'assistant', content: '', toolCalls: [first, second].filter((call) => call !== undefined) },
        { role: 'tool', toolCallId: first?.id ?? '', content: 'result one' },
        { role: 'tool', toolCallId: second?.id ?? '', content: 'result two' },
      ],
    })) {
      if (event.type === 'text-delta') text += event.text;
    }
    expect(text).toBe('Both answered.');
    const sent = subject.fake.requests[1]?.body as { messages: unknown[] };
    expect(sent.messages[1]).toMatchObject({
      role: 'assistant',
      content: null,
      tool_calls: [{ type: 'function' }, { type: 'function' }],
    });
    expect(sent.messages[2]).toEqual({ role: 'tool', tool_call_id: first?.id, content: 'result one' });
  });
});
