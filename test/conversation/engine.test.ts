import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IncomingTurn } from '../../src/conversation/turn.ts';
import type { Surface } from '../../src/delivery/surface.ts';
import { createSolidPng } from '../fakes/gateway/index.ts';
import { type EngineUnderTest, startEngineUnderTest } from '../support/engine-under-test.ts';
import { createRecordingSurface, type RecordingSurface } from '../support/recording-surface.ts';

let under: EngineUnderTest;
beforeEach(async () => {
  under = await startEngineUnderTest();
});
afterEach(() => under.close());

function turnOf(text: string, overrides: Partial<IncomingTurn> = {}): IncomingTurn {
  return {
    conversationKey: 'test:workspace:channel-1',
    author: { id: 'u1', name: 'Ada' },
    actor: { id: 'u1', name: 'Ada', isAdmin: false, roleIds: [], context: 'server' as const },
    text,
    images: [],
    ...overrides,
  };
}

const fastSurface = (): RecordingSurface =>
  createRecordingSurface({ maxMessageLength: 2000, minEditIntervalMs: 0 });
const secondsIn = (lines: readonly string[]) => lines.map((line) => Number(/(\d+) s_$/.exec(line)?.[1]));
const shownText = (surface: RecordingSurface) => [...surface.messageTexts.values()].join('\n');
type SentMessages = { messages: Array<{ role: string; content: unknown }> };
const sentMessages = (index: number) =>
  (under.subject.fake.requests[index]?.body as SentMessages | undefined)?.messages ?? [];

describe('conversation engine', () => {
  it('streams the reply to the surface and remembers the exchange with usage', async () => {
    under.subject.fake.enqueue({ text: 'Hi Ada! I am parley.', chunkSize: 3 });
    const surface = fastSurface();
    const outcome = await under.engine.reply({ turn: turnOf('hello'), surface });
    expect(outcome.status).toBe('complete');
    expect(shownText(surface)).toBe('Hi Ada! I am parley.');
    expect(surface.calls[0]?.kind).toBe('post');
    const stored = await under.history.load('test:workspace:channel-1');
    expect(stored.map((turn) => [turn.role, turn.authorName, turn.text])).toEqual([
      ['user', 'Ada', 'hello'],
      ['assistant', 'parley', 'Hi Ada! I am parley.'],
    ]);
    expect(stored[1]?.usage?.totalTokens).toBeGreaterThan(0);
    expect(sentMessages(0)).toEqual([
      { role: 'system', content: 'You are parley.' },
      { role: 'user', content: 'Ada: hello' },
    ]);
  });

  it('sends the earlier exchange with the next turn', async () => {
    under.subject.fake.enqueue({ text: 'first answer' });
    await under.engine.reply({ turn: turnOf('first question'), surface: fastSurface() });
    await under.engine.reply({
      turn: turnOf('second question', {
        author: { id: 'u2', name: 'Grace' },
        actor: { id: 'u2', name: 'Grace', isAdmin: false, roleIds: [], context: 'server' as const },
      }),
      surface: fastSurface(),
    });
    expect(sentMessages(1).slice(1)).toEqual([
      { role: 'user', content: 'Ada: first question' },
      { role: 'assistant', content: 'first answer' },
      { role: 'user', content: 'Grace: second question' },
    ]);
  });

  it('answers one turn at a time per conversation, in arrival order, while other conversations run alongside', async () => {
    under.subject.fake.setDefault({ delayBetweenChunksMs: 15, chunkSize: 6 });
    const order: string[] = [];
    const ask = (text: string, conversationKey: string) =>
      under.engine
        .reply({ turn: turnOf(text, { conversationKey }), surface: fastSurface() })
        .then(() => order.push(text));
    await Promise.all([ask('a1', 'test:w:a'), ask('a2', 'test:w:a'), ask('b1', 'test:w:b')]);
    expect(order.indexOf('a1')).toBeLessThan(order.indexOf('a2'));
    const texts = under.subject.fake.requests.map((request) =>
      JSON.stringify((request.body as SentMessages).messages.at(-1)),
    );
    // b1 reached the gateway before a2: it did not wait for conversation a.
    expect(texts.findIndex((text) => text.includes('b1'))).toBeLessThan(
      texts.findIndex((text) => text.includes('a2')),
    );
    // a2 was sent with a1's exchange already in history.
    const a2Request = under.subject.fake.requests.find((request) =>
      JSON.stringify(request.body).includes('Ada: a2'),
    );
    expect(JSON.stringify(a2Request?.body)).toContain('Ada: a1');
  });

  it('keeps a reply cut mid-stream, says it was cut, and records what was delivered', async () => {
    under.subject.fake.enqueue({ text: 'alpha beta gamma delta epsilon', chunkSize: 6, cutAfterChunks: 2 });
    const surface = fastSurface();
    const outcome = await under.engine.reply({ turn: turnOf('tell me'), surface });
    expect(outcome.status).toBe('cut');
    expect(shownText(surface)).toMatch(
      /^alpha beta g\n\n_⚠ reply cut off: The connection to the model broke off mid-reply\._$/,
    );
    const stored = await under.history.load('test:workspace:channel-1');
    expect(stored[1]).toMatchObject({ role: 'assistant', text: 'alpha beta g', isInterrupted: true });
    expect(under.logOutput()).toContain('stream-interrupted');
  });

  it('still records the reply, marked as cut, when the platform refuses every final write', async () => {
    under.subject.fake.enqueue({ text: 'alpha beta gamma delta', chunkSize: 6, delayBetweenChunksMs: 5 });
    const surface = createRecordingSurface({
      minEditIntervalMs: 0,
      shouldReject: (_call, callIndex) => callIndex > 0,
    });
    (surface as Surface).classifyFailure = () => ({ isRetryable: false });
    const outcome = await under.engine.reply({ turn: turnOf('go'), surface });
    expect(outcome.status).toBe('cut');
    const stored = await under.history.load('test:workspace:channel-1');
    expect(stored[1]).toMatchObject({
      role: 'assistant',
      text: 'alpha beta gamma delta',
      isInterrupted: true,
    });
    expect(under.logOutput()).toContain('final platform call failed');
  });

  it('puts the rest of the reply in a new message when the final edit cannot land, and records it whole', async () => {
    under.subject.fake.enqueue({ text: 'alpha beta gamma delta', chunkSize: 6, delayBetweenChunksMs: 5 });
    const surface = createRecordingSurface({
      minEditIntervalMs: 0,
      shouldReject: (call) => call.kind === 'edit',
    });
    (surface as Surface).classifyFailure = () => ({ isRetryable: false });
    const outcome = await under.engine.reply({ turn: turnOf('go'), surface });
    expect(outcome.status).toBe('complete');
    const texts = [...surface.messageTexts.values()];
    expect(texts).toHaveLength(2);
    expect(texts[1]).toMatch(/^_⚠ I could not finish the message above/);
    expect(texts.join('')).toContain('delta');
    const stored = await under.history.load('test:workspace:channel-1');
    expect(stored[1]).toMatchObject({ role: 'assistant', text: 'alpha beta gamma delta' });
    expect(stored[1]?.isInterrupted).toBeUndefined();
  });

  it('does not store a reply that is only whitespace', async () => {
    under.subject.fake.enqueue({ text: '  \n\n  ' });
    const surface = fastSurface();
    await under.engine.reply({ turn: turnOf('hello'), surface });
    expect(shownText(surface)).toBe('_(no reply)_');
    expect(await under.history.load('test:workspace:channel-1')).toEqual([]);
  });

  it('shows a short message and leaves history alone when the gateway fails before any text', async () => {
    under.subject.fake.enqueue({ error: { status: 402 } });
    const surface = fastSurface();
    const outcome = await under.engine.reply({ turn: turnOf('hello'), surface });
    expect(outcome.status).toBe('failed');
    expect(shownText(surface)).toBe('_⚠ The model service balance is used up. An admin needs to top it up._');
    expect(await under.history.load('test:workspace:channel-1')).toEqual([]);
  });

  it('stops on abort, keeping the text so far', async () => {
    under.subject.fake.enqueue({
      text: 'one two three four five six seven eight nine ten',
      chunkSize: 4,
      delayBetweenChunksMs: 40,
    });
    const controller = new AbortController();
    const surface = fastSurface();
    const replying = under.engine.reply({ turn: turnOf('count'), surface, signal: controller.signal });
    setTimeout(() => controller.abort(), 120);
    const outcome = await replying;
    expect(outcome.status).toBe('cut');
    expect(outcome.error?.kind).toBe('cancelled');
    expect(shownText(surface)).toMatch(/_⚠ reply cut off: Stopped\._$/);
  });

  it('sends an attached image as a data: URI to the vision model, and leaves out what is not an image', async () => {
    const png = createSolidPng({ widthPx: 2, heightPx: 2, colour: { red: 255, green: 0, blue: 0 } });
    const surface = fastSurface();
    await under.engine.reply({
      turn: turnOf('what colour?', {
        images: [
          { name: 'red.png', load: async () => png },
          { name: 'notes.txt', load: async () => new TextEncoder().encode('just text') },
        ],
      }),
      surface,
    });
    const body = under.subject.fake.requests[0]?.body as { model: string } & SentMessages;
    expect(body.model).toBe('vision-model');
    expect(body.messages.at(-1)).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'Ada: what colour?' },
        {
          type: 'image_url',
          image_url: { url: `data:image/png;base64,${Buffer.from(png).toString('base64')}` },
        },
      ],
    });
    expect(shownText(surface)).toContain(
      '_notes.txt is not a PNG, JPEG, GIF or WebP image, so I left it out._',
    );
    const stored = await under.history.load('test:workspace:channel-1');
    expect(stored[0]?.images).toEqual([{ name: 'red.png', mimeType: 'image/png', byteLength: png.length }]);
  });

  it('tells the person when the oldest turns no longer fit the context', async () => {
    const long = 'word '.repeat(4_000);
    for (let index = 0; index < 4; index += 1) {
      await under.history.append('test:workspace:channel-1', [
        {
          role: 'user',
          authorId: 'u1',
          authorName: 'Ada',
          text: long,
          images: [],
          createdAt: new Date().toISOString(),
        },
        {
          role: 'assistant',
          authorId: 'parley',
          authorName: 'parley',
          text: long,
          images: [],
          createdAt: new Date().toISOString(),
        },
      ]);
    }
    under.subject.fake.enqueue({ text: 'ok' });
    const surface = fastSurface();
    await under.engine.reply({ turn: turnOf('still there?'), surface });
    expect(shownText(surface)).toMatch(
      /^ok\n\n_The \d+ oldest messages of this conversation no longer fit in my context, so I left them out\._$/,
    );
    expect(sentMessages(0).length).toBeLessThan(10);
  });

  it('forgets the conversation on reset', async () => {
    await under.engine.reply({ turn: turnOf('remember me'), surface: fastSurface() });
    await under.settings.update('test:workspace:channel-1', { model: 'vision-model' });
    await under.engine.reset('test:workspace:channel-1');
    expect(await under.history.load('test:workspace:channel-1')).toEqual([]);
    expect(await under.settings.get('test:workspace:channel-1')).toEqual({});
  });

  it('uses the conversation model and system prompt when they are set', async () => {
    await under.settings.update('test:workspace:channel-1', {
      model: 'vision-model',
      systemPrompt: 'Talk like a pirate.',
    });
    await under.engine.reply({ turn: turnOf('hi'), surface: fastSurface() });
    const body = under.subject.fake.requests[0]?.body as { model: string } & SentMessages;
    expect(body.model).toBe('vision-model');
    expect(body.messages[0]).toEqual({ role: 'system', content: 'Talk like a pirate.' });
  });

  it('tells the person, in the reply, when the exchange could not be saved', async () => {
    await under.close();
    under = await startEngineUnderTest({
      wrapHistory: (history) => ({
        ...history,
        append: async () => {
          throw new Error('database or disk is full');
        },
      }),
    });
    under.subject.fake.enqueue({ text: 'Here is your answer.' });
    const surface = fastSurface();
    const outcome = await under.engine.reply({ turn: turnOf('hello'), surface });
    expect(outcome.status).toBe('complete');
    expect(shownText(surface)).toBe(
      'Here is your answer.\n\n_⚠ I could not save this exchange to the conversation history, so I will not remember it._',
    );
    expect(under.logOutput()).toContain('database or disk is full');
  });

  it('shows that it is still waiting when the model is slow to start, then replaces that with the reply', async () => {
    await under.close();
    under = await startEngineUnderTest({
      engineOptions: { waiting: { stillWaitingAfterMs: 100, typingIntervalMs: 60 } },
    });
    under.subject.fake.enqueue({ text: 'Finally here.', latencyMs: 400 });
    const surface = fastSurface();
    let typingCount = 0;
    (surface as Surface).showTyping = async () => {
      typingCount += 1;
    };
    await under.engine.reply({ turn: turnOf('hello'), surface });
    expect(surface.calls[0]).toMatchObject({
      kind: 'post',
      text: expect.stringMatching(/^_⏳ still waiting: the model service has not answered yet · \d+ s_$/),
    });
    expect([...surface.messageTexts.values()]).toEqual(['Finally here.']);
    expect(typingCount).toBeGreaterThanOrEqual(3);
  });

  it('says when nothing has answered, and how long it has waited, brought up to date as time passes', async () => {
    await under.close();
    under = await startEngineUnderTest({
      engineOptions: {
        waiting: { stillWaitingAfterMs: 300, stillWaitingUpdateMs: 1_000, typingIntervalMs: 5_000 },
      },
    });
    // The gateway sends no response headers for 2.5 s.
    under.subject.fake.enqueue({ text: 'Finally here.', latencyMs: 2_500 });
    const surface = fastSurface();
    await under.engine.reply({ turn: turnOf('hello'), surface });
    const waitingLines = surface.calls
      .map((call) => call.text)
      .filter((text) => text.includes('still waiting'));
    // Shown after 0.3 s, then once a second until the reply came at 2.5 s (timers may run late).
    expect(waitingLines.length).toBeGreaterThanOrEqual(2);
    for (const line of waitingLines) {
      expect(line).toMatch(/^_⏳ still waiting: the model service has not answered yet · \d+ s_$/);
    }
    expect(secondsIn(waitingLines)).toEqual([...new Set(secondsIn(waitingLines))].sort((a, b) => a - b));
    expect(secondsIn(waitingLines).at(-1)).toBeGreaterThanOrEqual(1);
    expect([...surface.messageTexts.values()]).toEqual(['Finally here.']);
  });

  it('says when the model service took the request and the model is slow to start writing', async () => {
    await under.close();
    under = await startEngineUnderTest({
      engineOptions: {
        waiting: { stillWaitingAfterMs: 600, stillWaitingUpdateMs: 1_000, typingIntervalMs: 5_000 },
      },
    });
    // Headers at once, then 2 s before the first token.
    under.subject.fake.enqueue({ text: 'Finally here.', firstContentDelayMs: 2_000 });
    const surface = fastSurface();
    await under.engine.reply({ turn: turnOf('hello'), surface });
    const waitingLines = surface.calls
      .map((call) => call.text)
      .filter((text) => text.includes('still waiting'));
    expect(waitingLines.length).toBeGreaterThanOrEqual(1);
    for (const line of waitingLines) {
      expect(line).toMatch(
        /^_⏳ still waiting for the model to start writing \(the model service took the request\) · \d+ s_$/,
      );
    }
    expect([...surface.messageTexts.values()]).toEqual(['Finally here.']);
  });
});
