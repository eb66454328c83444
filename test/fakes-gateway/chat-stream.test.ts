import type OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeGateway, startFakeGateway } from '../fakes/gateway/index.ts';
import { collect, createSdkClient, rejectionOf } from './sdk-client.ts';

const messages = [{ role: 'user' as const, content: 'Stream to me' }];

describe('fake gateway: streamed chat completions', () => {
  let fake: FakeGateway;
  let client: OpenAI;

  beforeAll(async () => {
    fake = await startFakeGateway();
    client = createSdkClient(fake);
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.reset());

  it('streams a role chunk, content deltas, then a final chunk with finish_reason and usage', async () => {
    fake.enqueue({ text: 'One two three four five six seven.', chunkSize: 5 });

    const chunks = await collect(
      await client.chat.completions.create({ model: 'fake-model', stream: true, messages }),
    );

    const [first, ...rest] = chunks;
    const last = rest.pop();
    expect(first?.choices).toEqual([
      { index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null },
    ]);
    expect(first?.usage).toBeUndefined();
    const deltas = rest.map((chunk) => chunk.choices[0]?.delta.content);
    expect(deltas).toEqual(['One t', 'wo th', 'ree f', 'our f', 'ive s', 'ix se', 'ven.']);
    expect(rest.every((chunk) => chunk.choices[0]?.finish_reason === null && chunk.usage === undefined)).toBe(
      true,
    );
    expect(last?.choices).toEqual([{ index: 0, delta: {}, finish_reason: 'stop' }]);
    expect(last?.usage?.completion_tokens).toBeGreaterThan(0);
    expect(last?.usage?.total_tokens).toBe(
      (last?.usage?.prompt_tokens ?? 0) + (last?.usage?.completion_tokens ?? 0),
    );
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    expect(
      chunks.every((chunk) => chunk.object === 'chat.completion.chunk' && chunk.model === 'fake-model'),
    ).toBe(true);
  });

  it('streams the default reply a few words at a time, concatenating to the whole text', async () => {
    const whole = await client.chat.completions.create({ model: 'fake-model', messages });
    const chunks = await collect(
      await client.chat.completions.create({ model: 'fake-model', stream: true, messages }),
    );

    const deltas = chunks.flatMap((chunk) => chunk.choices[0]?.delta.content ?? []);
    expect(deltas.join('')).toBe(whole.choices[0]?.message.content);
    expect(deltas.filter((delta) => delta !== '').length).toBeGreaterThan(10);
  });

  it('sends text/event-stream with data lines, blank-line separators and a [DONE] marker', async () => {
    fake.enqueue({ text: 'Hi!' });

    const response = await fetch(`${fake.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer test-key', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fake-model', stream: true, messages }),
    });
    const body = await response.text();

    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = body.split('\n\n');
    expect(events.pop()).toBe('');
    expect(events.at(-1)).toBe('data: [DONE]');
    expect(events.every((event) => event.startsWith('data: ') && !event.includes('\n'))).toBe(true);
    expect(events).toHaveLength(4);
  });

  it('still parses when every event is split across writes, even inside a multi-byte character', async () => {
    const text = 'Grüße — naïve café 🎉 done';
    fake.enqueue({ text, chunkSize: 3, splitLinesAcrossWrites: true });

    const chunks = await collect(
      await client.chat.completions.create({ model: 'fake-model', stream: true, messages }),
    );

    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe(text);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
  });

  it('really delivers split events as partial lines in separate reads', async () => {
    fake.enqueue({ text: 'abc def ghi', splitLinesAcrossWrites: true });

    const response = await fetch(`${fake.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer test-key', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fake-model', stream: true, messages }),
    });
    const reads: string[] = [];
    const decoder = new TextDecoder();
    for await (const bytes of response.body ?? []) {
      reads.push(decoder.decode(bytes, { stream: true }));
    }

    // Unsplit, every write is a whole event, so every read would end with the blank line.
    expect(reads.some((read) => !read.endsWith('\n\n'))).toBe(true);
    expect(reads.join('')).toMatch(/data: \[DONE\]\n\n$/);
  });

  it('makes the SDK iteration throw when the connection is cut mid-stream', async () => {
    fake.enqueue({ text: 'aaaabbbbccccdddd', chunkSize: 4, cutAfterChunks: 2 });

    const stream = await client.chat.completions.create({ model: 'fake-model', stream: true, messages });
    const received: string[] = [];
    const error = await rejectionOf(
      (async () => {
        for await (const chunk of stream) {
          received.push(chunk.choices[0]?.delta.content ?? `<finish ${chunk.choices[0]?.finish_reason}>`);
        }
      })(),
    );

    expect(error).toBeInstanceOf(Error);
    expect(received).toEqual(['', 'aaaa', 'bbbb']);
  });

  it('can end a cut stream cleanly, which the SDK does not report as an error', async () => {
    fake.enqueue({ text: 'aaaabbbbcccc', chunkSize: 4, cutAfterChunks: 1, endCleanlyOnCut: true });

    const chunks = await collect(
      await client.chat.completions.create({ model: 'fake-model', stream: true, messages }),
    );

    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content)).toEqual(['', 'aaaa']);
    expect(chunks.some((chunk) => chunk.choices[0]?.finish_reason !== null)).toBe(false);
  });

  it('ends a stream with finish_reason length when asked', async () => {
    fake.enqueue({ text: 'Truncat', finishReason: 'length' });

    const chunks = await collect(
      await client.chat.completions.create({ model: 'fake-model', stream: true, messages }),
    );

    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('length');
  });

  it('waits latencyMs before the headers and delayBetweenChunksMs between events', async () => {
    fake.enqueue({ text: 'one two three', chunkSize: 4, latencyMs: 150, delayBetweenChunksMs: 40 });
    const startedAt = performance.now();

    const stream = await client.chat.completions.create({ model: 'fake-model', stream: true, messages });
    const headersAfterMs = performance.now() - startedAt;
    await collect(stream);
    const finishedAfterMs = performance.now() - startedAt;

    // Lower bounds only: a slow machine may take longer, never shorter. Four content chunks and the
    // final chunk each wait 40 ms.
    expect(headersAfterMs).toBeGreaterThanOrEqual(140);
    expect(finishedAfterMs - headersAfterMs).toBeGreaterThanOrEqual(190);
  });

  it('applies a default behaviour to every request until reset', async () => {
    fake.setDefault({ text: 'default text', chunkSize: 100 });
    fake.enqueue({ chunkSize: 4 });

    const first = await collect(
      await client.chat.completions.create({ model: 'fake-model', stream: true, messages }),
    );
    const second = await collect(
      await client.chat.completions.create({ model: 'fake-model', stream: true, messages }),
    );
    fake.reset();
    const afterReset = await client.chat.completions.create({ model: 'fake-model', messages });

    const contents = (chunks: typeof first) =>
      chunks.flatMap((chunk) => chunk.choices[0]?.delta.content || []);
    expect(contents(first)).toEqual(['defa', 'ult ', 'text']);
    expect(contents(second)).toEqual(['default text']);
    expect(afterReset.choices[0]?.message.content).toMatch(/^You said:/);
  });
});

describe('fake gateway: closing with a stream open', () => {
  it('close() ends the stream so the client does not hang', async () => {
    const fake = await startFakeGateway({ defaultBehaviour: { delayBetweenChunksMs: 60_000 } });
    const client = createSdkClient(fake);
    const stream = await client.chat.completions.create({ model: 'fake-model', stream: true, messages });
    const iterator = stream[Symbol.asyncIterator]();
    const first = await iterator.next();

    // The outcome handlers are attached before closing, so the rejection is never unhandled.
    const outcome = iterator.next().then(
      (result) => (result.done === true ? 'ended' : 'more'),
      () => 'threw',
    );
    await fake.close();

    expect(first.value?.choices[0]?.delta.role).toBe('assistant');
    expect(await outcome).toBe('threw');
  });
});
