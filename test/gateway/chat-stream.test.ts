import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChatStreamEvent } from '../../src/gateway/chat-types.ts';
import { GatewayError } from '../../src/gateway/gateway-error.ts';
import { type GatewayUnderTest, startGatewayUnderTest } from '../support/gateway-under-test.ts';

let subject: GatewayUnderTest;
beforeAll(async () => {
  subject = await startGatewayUnderTest();
});
afterAll(() => subject.close());
beforeEach(() => subject.fake.reset());

async function drain(
  events: AsyncIterable<ChatStreamEvent>,
): Promise<{ events: ChatStreamEvent[]; error: unknown }> {
  const seen: ChatStreamEvent[] = [];
  try {
    for await (const event of events) seen.push(event);
  } catch (error) {
    return { events: seen, error };
  }
  return { events: seen, error: undefined };
}

const textOf = (events: readonly ChatStreamEvent[]) =>
  events.map((event) => (event.type === 'text-delta' ? event.text : '')).join('');

const hello = [{ role: 'user' as const, content: 'Ada: hello' }];

describe('chatStream against the fake gateway', () => {
  it('yields text deltas that add up to the reply, then one finish with usage', async () => {
    subject.fake.enqueue({ text: 'Hello Ada, nice to meet you.', chunkSize: 4 });
    const { events, error } = await drain(
      subject.gateway.chatStream({
        hold: subject.hold,
        model: 'chat-model',
        messages: hello,
        maxTokens: 200,
      }),
    );
    expect(error).toBeUndefined();
    expect(textOf(events)).toBe('Hello Ada, nice to meet you.');
    expect(events.filter((event) => event.type === 'text-delta').length).toBeGreaterThan(3);
    const finish = events.at(-1);
    expect(finish).toMatchObject({ type: 'finish', finishReason: 'stop' });
    expect(finish?.type === 'finish' && finish.usage?.totalTokens).toBeGreaterThan(0);
    const sent = subject.fake.requests[0];
    expect(sent?.path).toBe('/api/v1/chat/completions');
    expect(sent?.headers.authorization).toBe('Bearer gw-test-key-0123456789');
    expect(sent?.body).toMatchObject({ model: 'chat-model', stream: true, max_tokens: 200, messages: hello });
    expect(sent?.body).not.toHaveProperty('n');
  });

  it('reassembles SSE lines split across network writes', async () => {
    subject.fake.enqueue({
      text: 'split lines still make sense',
      chunkSize: 3,
      splitLinesAcrossWrites: true,
    });
    const { events, error } = await drain(
      subject.gateway.chatStream({
        hold: subject.hold,
        maxTokens: 100,
        model: 'chat-model',
        messages: hello,
      }),
    );
    expect(error).toBeUndefined();
    expect(textOf(events)).toBe('split lines still make sense');
  });

  it('reports finish_reason length', async () => {
    subject.fake.enqueue({ text: 'cut by the token limit', finishReason: 'length' });
    const { events } = await drain(
      subject.gateway.chatStream({
        hold: subject.hold,
        maxTokens: 100,
        model: 'chat-model',
        messages: hello,
      }),
    );
    expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: 'length' });
  });

  it('keeps the text yielded before a cut and then throws stream-interrupted', async () => {
    subject.fake.enqueue({
      text: 'one two three four five six seven eight',
      chunkSize: 4,
      cutAfterChunks: 3,
    });
    const { events, error } = await drain(
      subject.gateway.chatStream({
        hold: subject.hold,
        maxTokens: 100,
        model: 'chat-model',
        messages: hello,
      }),
    );
    expect(textOf(events)).toBe('one two thre');
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).kind).toBe('stream-interrupted');
    expect((error as GatewayError).userMessage).toMatch(/broke off/);
  });

  it('treats a stream that ends without its finish chunk as interrupted', async () => {
    subject.fake.enqueue({
      text: 'one two three four',
      chunkSize: 4,
      cutAfterChunks: 2,
      endCleanlyOnCut: true,
    });
    const { events, error } = await drain(
      subject.gateway.chatStream({
        hold: subject.hold,
        maxTokens: 100,
        model: 'chat-model',
        messages: hello,
      }),
    );
    expect(textOf(events)).toBe('one two ');
    expect((error as GatewayError).kind).toBe('stream-interrupted');
  });

  it('stops when the caller aborts, as a cancelled error', async () => {
    subject.fake.enqueue({ text: 'a b c d e f g h i j k l m n o p', chunkSize: 2, delayBetweenChunksMs: 30 });
    const controller = new AbortController();
    const seen: string[] = [];
    let caught: unknown;
    try {
      for await (const event of subject.gateway.chatStream({
        hold: subject.hold,
        maxTokens: 100,
        model: 'chat-model',
        messages: hello,
        signal: controller.signal,
      })) {
        if (event.type === 'text-delta') {
          seen.push(event.text);
          if (seen.length === 2) controller.abort();
        }
      }
    } catch (error) {
      caught = error;
    }
    expect(seen.length).toBeLessThan(5);
    expect((caught as GatewayError).kind).toBe('cancelled');
  });

  it('hands the text to onTextDelta in order, after response-started and before finish, with no text-delta events', async () => {
    subject.fake.enqueue({ text: 'Hello Ada, nice to meet you.', chunkSize: 4 });
    // One log of what the consumer saw, in the order it saw it: sink calls and events alike.
    const seen: string[] = [];
    for await (const event of subject.gateway.chatStream({
      hold: subject.hold,
      model: 'chat-model',
      messages: hello,
      maxTokens: 200,
      onTextDelta: (text) => seen.push(`text:${text}`),
    })) {
      seen.push(event.type);
    }
    expect(seen[0]).toBe('response-started');
    expect(seen.at(-1)).toBe('finish');
    const texts = seen.slice(1, -1);
    expect(texts.every((entry) => entry.startsWith('text:'))).toBe(true);
    expect(texts.length).toBeGreaterThan(3);
    expect(texts.map((entry) => entry.slice('text:'.length)).join('')).toBe('Hello Ada, nice to meet you.');
  });

  it('has handed the sink exactly the text before a cut, then throws stream-interrupted', async () => {
    subject.fake.enqueue({
      text: 'one two three four five six seven eight',
      chunkSize: 4,
      cutAfterChunks: 3,
    });
    let text = '';
    const { events, error } = await drain(
      subject.gateway.chatStream({
        hold: subject.hold,
        maxTokens: 100,
        model: 'chat-model',
        messages: hello,
        onTextDelta: (delta) => {
          text += delta;
        },
      }),
    );
    expect(text).toBe('one two thre');
    expect(events.some((event) => event.type === 'text-delta')).toBe(false);
    expect((error as GatewayError).kind).toBe('stream-interrupted');
  });

  it('stops as cancelled when the caller aborts from inside the sink', async () => {
    subject.fake.enqueue({ text: 'a b c d e f g h i j k l m n o p', chunkSize: 2, delayBetweenChunksMs: 30 });
    const controller = new AbortController();
    const seen: string[] = [];
    const { error } = await drain(
      subject.gateway.chatStream({
        hold: subject.hold,
        maxTokens: 100,
        model: 'chat-model',
        messages: hello,
        signal: controller.signal,
        onTextDelta: (text) => {
          seen.push(text);
          if (seen.length === 2) controller.abort();
        },
      }),
    );
    expect(seen.length).toBeLessThan(5);
    expect((error as GatewayError).kind).toBe('cancelled');
  });

  it("ends the stream with the sink's own error when the sink throws, as a throw from the consumer's loop would", async () => {
    subject.fake.enqueue({ text: 'one two three four five', chunkSize: 4, delayBetweenChunksMs: 5 });
    const broken = new Error('the writer broke');
    let calls = 0;
    const { events, error } = await drain(
      subject.gateway.chatStream({
        hold: subject.hold,
        maxTokens: 100,
        model: 'chat-model',
        messages: hello,
        onTextDelta: () => {
          calls += 1;
          if (calls === 2) throw broken;
        },
      }),
    );
    expect(error).toBe(broken);
    expect(calls).toBe(2);
    expect(events.map((event) => event.type)).toEqual(['response-started']);
  });

  it('gives up on a stream that goes silent for longer than the timeout', async () => {
    const slow = await startGatewayUnderTest({ timeoutMs: 150 });
    try {
      slow.fake.enqueue({ text: 'a b c d', chunkSize: 2, delayBetweenChunksMs: 1_000 });
      const { error } = await drain(
        slow.gateway.chatStream({ hold: slow.hold, maxTokens: 100, model: 'chat-model', messages: hello }),
      );
      expect((error as GatewayError).kind).toBe('timeout');
    } finally {
      await slow.close();
    }
  });

  it('gives up on a gateway that never starts answering within the first-byte timeout, per attempt, then retries', async () => {
    const waiting = await startGatewayUnderTest({
      timeoutMs: 60_000,
      firstByteTimeoutMs: 300,
      maxRetries: 1,
    });
    try {
      waiting.fake.enqueue({ latencyMs: 5_000, text: 'too late' });
      waiting.fake.enqueue({ latencyMs: 5_000, text: 'too late again' });
      const startedAtMs = Date.now();
      const { error } = await drain(
        waiting.gateway.chatStream({
          hold: waiting.hold,
          maxTokens: 100,
          model: 'chat-model',
          messages: hello,
        }),
      );
      expect((error as GatewayError).kind).toBe('timeout');
      // Two attempts of 300 ms and the SDK's pause between them: seconds, not the minute of timeoutMs.
      expect(Date.now() - startedAtMs).toBeLessThan(4_000);
      expect(waiting.fake.requests).toHaveLength(2);
    } finally {
      await waiting.close();
    }
  });

  it('allows the longer idle timeout between chunks once the reply has started', async () => {
    const steady = await startGatewayUnderTest({ timeoutMs: 2_000, firstByteTimeoutMs: 200 });
    try {
      steady.fake.enqueue({ text: 'a b c d', chunkSize: 2, delayBetweenChunksMs: 500 });
      const { events, error } = await drain(
        steady.gateway.chatStream({
          hold: steady.hold,
          maxTokens: 100,
          model: 'chat-model',
          messages: hello,
        }),
      );
      expect(error).toBeUndefined();
      expect(textOf(events)).toBe('a b c d');
    } finally {
      await steady.close();
    }
  });

  it('sends images as data: URI parts to a vision model', async () => {
    const dataUri = 'data:image/png;base64,iVBORw0KGgo=';
    const messages = [
      {
        role: 'user' as const,
        content: [
          { type: 'text' as const, text: 'what is this?' },
          { type: 'image_url' as const, image_url: { url: dataUri } },
        ],
      },
    ];
    const { error } = await drain(
      subject.gateway.chatStream({ hold: subject.hold, maxTokens: 100, model: 'vision-model', messages }),
    );
    expect(error).toBeUndefined();
    expect(subject.fake.requests[0]?.body).toMatchObject({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this?' },
            { type: 'image_url', image_url: { url: dataUri } },
          ],
        },
      ],
    });
  });

  it('describes images in words to a model without vision, and says so', async () => {
    const messages = [
      {
        role: 'user' as const,
        content: [
          { type: 'text' as const, text: 'what is this?' },
          { type: 'image_url' as const, image_url: { url: 'data:image/png;base64,AAAA' } },
        ],
      },
    ];
    const { events, error } = await drain(
      subject.gateway.chatStream({ hold: subject.hold, maxTokens: 100, model: 'chat-model', messages }),
    );
    expect(error).toBeUndefined();
    expect(events[0]).toMatchObject({ type: 'notice', message: expect.stringMatching(/cannot see images/) });
    expect(subject.fake.requests[0]?.body).toMatchObject({
      messages: [{ role: 'user', content: 'what is this?\n[an image was attached]' }],
    });
  });
});

describe('chat (whole reply)', () => {
  it('returns the text, finish reason and usage', async () => {
    subject.fake.enqueue({ text: 'whole reply' });
    const reply = await subject.gateway.chat({
      hold: subject.hold,
      maxTokens: 100,
      model: 'chat-model',
      messages: hello,
    });
    expect(reply).toMatchObject({ text: 'whole reply', finishReason: 'stop', notices: [] });
    expect(reply.usage?.completionTokens).toBeGreaterThan(0);
    expect(subject.fake.requests[0]?.body).not.toHaveProperty('stream');
  });
});
