import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { lengthLimitNote, noReplyText } from '../../src/delivery/reply-notes.ts';
import { createStreamingWriter, type StreamingWriter } from '../../src/delivery/streaming-writer.ts';
import type { Surface } from '../../src/delivery/surface.ts';
import { callsFor, createRecordingSurface, type RecordingSurface } from '../support/recording-surface.ts';

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});

afterEach(() => {
  vi.useRealTimers();
});

/** Appends `text` in pieces of `deltaLength`, letting `deltaIntervalMs` of fake time pass after each. */
async function streamText(writer: StreamingWriter, text: string, deltaLength = 5, deltaIntervalMs = 20) {
  for (let index = 0; index < text.length; index += deltaLength) {
    writer.append(text.slice(index, index + deltaLength));
    await vi.advanceTimersByTimeAsync(deltaIntervalMs);
  }
}

async function settle<T>(promise: Promise<T>): Promise<T> {
  await vi.runAllTimersAsync();
  return promise;
}

function expectPacedCalls(surface: RecordingSurface, messageId: string, minEditIntervalMs: number): void {
  const calls = callsFor(surface, messageId);
  for (const [index, call] of calls.entries()) {
    const previous = calls[index - 1];
    if (previous === undefined) continue;
    expect(call.startedAtMs - previous.startedAtMs).toBeGreaterThanOrEqual(minEditIntervalMs);
    expect(call.startedAtMs).toBeGreaterThanOrEqual(previous.endedAtMs ?? Number.POSITIVE_INFINITY);
  }
}

const words = (count: number): string =>
  Array.from({ length: count }, (_, index) => `word${index}`).join(' ');

describe('createStreamingWriter', () => {
  it('posts the first visible text the moment it arrives, with no placeholder', () => {
    const surface = createRecordingSurface();
    const writer = createStreamingWriter({ surface });
    writer.append('Hel');
    expect(surface.calls).toEqual([expect.objectContaining({ kind: 'post', text: 'Hel', startedAtMs: 0 })]);
  });

  it('shows a waiting line while there is no text, and puts the first text in its place', async () => {
    const surface = createRecordingSurface({ minEditIntervalMs: 1000 });
    const writer = createStreamingWriter({ surface });
    writer.showWaiting('_still waiting for the model…_');
    expect(surface.calls.map((call) => [call.kind, call.text])).toEqual([
      ['post', '_still waiting for the model…_'],
    ]);
    await vi.advanceTimersByTimeAsync(2000);
    writer.append('  ');
    await vi.advanceTimersByTimeAsync(2000);
    expect(surface.calls).toHaveLength(1);
    writer.append('Here it is.');
    const reply = await settle(writer.finish());
    expect([...surface.messageTexts.values()]).toEqual(['  Here it is.']);
    expect(reply).toMatchObject({ text: '  Here it is.', messages: [{ id: 'message-1' }] });
  });

  it('brings the waiting line up to date in edits within the edit interval, until text comes', async () => {
    const surface = createRecordingSurface({ minEditIntervalMs: 1000 });
    const writer = createStreamingWriter({ surface });
    writer.showWaiting('_still waiting… 5 s_');
    writer.showWaiting('_still waiting… 6 s_');
    // The edit waits for the message's edit interval.
    expect(surface.calls.map((call) => [call.kind, call.text])).toEqual([['post', '_still waiting… 5 s_']]);
    await vi.advanceTimersByTimeAsync(1000);
    writer.append('  ');
    writer.showWaiting('_still waiting… 10 s_');
    await vi.advanceTimersByTimeAsync(1000);
    expect(surface.calls.map((call) => [call.kind, call.text])).toEqual([
      ['post', '_still waiting… 5 s_'],
      ['edit', '_still waiting… 6 s_'],
      ['edit', '_still waiting… 10 s_'],
    ]);
    writer.append('Here.');
    writer.showWaiting('_still waiting… 15 s_');
    const reply = await settle(writer.finish());
    expect([...surface.messageTexts.values()]).toEqual(['  Here.']);
    expect(surface.calls.map((call) => call.text)).not.toContain('_still waiting… 15 s_');
    expect(reply.messages).toHaveLength(1);
  });

  it('replaces the waiting line with the failure when no text ever came', async () => {
    const surface = createRecordingSurface();
    const writer = createStreamingWriter({ surface });
    writer.showWaiting('_still waiting for the model…_');
    await settle(writer.fail({ reason: 'The model took too long to answer.' }));
    expect([...surface.messageTexts.values()]).toEqual(['_⚠ The model took too long to answer._']);
  });

  it('ignores a waiting line once text has been shown', async () => {
    const surface = createRecordingSurface();
    const writer = createStreamingWriter({ surface });
    writer.append('Hi');
    writer.showWaiting('_still waiting_');
    await settle(writer.finish());
    expect(surface.calls.map((call) => call.text)).toEqual(['Hi']);
  });

  it('waits for visible text before posting', () => {
    const surface = createRecordingSurface();
    const writer = createStreamingWriter({ surface });
    writer.append('\n');
    writer.append('  ');
    expect(surface.calls).toEqual([]);
    writer.append('Hi');
    expect(surface.calls.map((call) => call.text)).toEqual(['\n  Hi']);
  });

  it('coalesces a burst of deltas into one edit', async () => {
    const surface = createRecordingSurface({ minEditIntervalMs: 1000 });
    const writer = createStreamingWriter({ surface });
    writer.append('Hello');
    for (let index = 0; index < 50; index += 1) writer.append(` ${index}`);
    await vi.advanceTimersByTimeAsync(999);
    expect(surface.calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    const expected = `Hello${Array.from({ length: 50 }, (_, index) => ` ${index}`).join('')}`;
    expect(surface.calls.map((call) => [call.kind, call.text, call.startedAtMs])).toEqual([
      ['post', 'Hello', 0],
      ['edit', expected, 1000],
    ]);
  });

  it('edits at once when the text grows after a quiet spell', async () => {
    const surface = createRecordingSurface({ minEditIntervalMs: 1000 });
    const writer = createStreamingWriter({ surface });
    writer.append('Hello');
    await vi.advanceTimersByTimeAsync(5000);
    writer.append(' again');
    expect(surface.calls.at(-1)).toMatchObject({ kind: 'edit', text: 'Hello again', startedAtMs: 5000 });
  });

  it.each([
    { callDurationMs: 0, minEditIntervalMs: 1000 },
    { callDurationMs: 300, minEditIntervalMs: 1000 },
    { callDurationMs: 1700, minEditIntervalMs: 1000 },
    { callDurationMs: 50, minEditIntervalMs: 250 },
  ])(
    'spaces edits and keeps one call in flight (call $callDurationMs ms, interval $minEditIntervalMs ms)',
    async ({ callDurationMs, minEditIntervalMs }) => {
      const surface = createRecordingSurface({ callDurationMs, minEditIntervalMs, maxMessageLength: 4000 });
      const writer = createStreamingWriter({ surface });
      const text = words(300);
      await streamText(writer, text);
      const reply = await settle(writer.finish({ finishReason: 'stop' }));
      expect(surface.maxCallsInFlightPerMessage()).toBe(1);
      expectPacedCalls(surface, 'message-1', minEditIntervalMs);
      const streamingMs = (text.length / 5) * 20;
      expect(reply.editCount).toBeLessThanOrEqual(Math.ceil(streamingMs / minEditIntervalMs) + 2);
      expect(reply.editCount).toBeGreaterThan(1);
      expect(surface.messageTexts.get('message-1')).toBe(text);
      expect(surface.calls.at(-1)?.text).toBe(text);
    },
  );

  it('ends with the exact text and reports what it delivered', async () => {
    const surface = createRecordingSurface();
    const writer = createStreamingWriter({ surface });
    const text = `Sure! Here you go:\n\n${words(40)}\n`;
    await streamText(writer, text, 3, 7);
    const reply = await settle(writer.finish({ finishReason: 'stop', notes: [] }));
    expect(reply).toEqual({
      text,
      messages: [{ id: 'message-1' }],
      editCount: callsFor(surface, 'message-1').filter((call) => call.kind === 'edit').length,
      isComplete: true,
    });
    expect([...surface.messageTexts.values()]).toEqual([text]);
  });

  it('waits for the call in flight before the final edit', async () => {
    const surface = createRecordingSurface({ callDurationMs: 3000, minEditIntervalMs: 1000 });
    const writer = createStreamingWriter({ surface });
    writer.append('Hello');
    writer.append(' world');
    let isResolved = false;
    const finished = writer.finish().then((reply) => {
      isResolved = true;
      return reply;
    });
    await vi.advanceTimersByTimeAsync(2999);
    expect(isResolved).toBe(false);
    const reply = await settle(finished);
    expect(surface.calls.map((call) => [call.kind, call.text, call.startedAtMs])).toEqual([
      ['post', 'Hello', 0],
      ['edit', 'Hello world', 3000],
    ]);
    expect(reply.text).toBe('Hello world');
  });

  it('sends the final edit as soon as the surface allows, not at the in-between pace', async () => {
    const surface = createRecordingSurface({ minEditIntervalMs: 1000, finalEditIntervalMs: 0 });
    const writer = createStreamingWriter({ surface });
    writer.append('Hello');
    await vi.advanceTimersByTimeAsync(200);
    writer.append(' world');
    await vi.advanceTimersByTimeAsync(1000);
    writer.append(', again');
    await vi.advanceTimersByTimeAsync(100);
    await settle(writer.finish());
    // In-between edits keep the pace; the final one goes the moment the reply ends.
    expect(surface.calls.map((call) => [call.kind, call.text, call.startedAtMs])).toEqual([
      ['post', 'Hello', 0],
      ['edit', 'Hello world', 1000],
      ['edit', 'Hello world, again', 1300],
    ]);
  });

  it('keeps the pause after a failed call even where the final edit could go at once', async () => {
    const surface = createRecordingSurface({
      minEditIntervalMs: 1000,
      finalEditIntervalMs: 0,
      shouldReject: (call) => call.kind === 'edit' && call.text === 'Hello world',
    });
    const writer = createStreamingWriter({ surface });
    writer.append('Hello');
    writer.append(' world');
    await vi.advanceTimersByTimeAsync(1000);
    expect(surface.calls.at(-1)).toMatchObject({ text: 'Hello world', outcome: 'rejected' });
    writer.append('!');
    await settle(writer.finish());
    const final = surface.calls.at(-1);
    expect(final).toMatchObject({ text: 'Hello world!', outcome: 'accepted' });
    expect(final?.startedAtMs).toBeGreaterThanOrEqual(2000);
  });

  it('shows an unfinished code block closed while it streams', () => {
    const surface = createRecordingSurface();
    const writer = createStreamingWriter({ surface });
    writer.append('```ts\nconst a');
    expect(surface.calls[0]?.text).toBe('```ts\nconst a\n```');
  });

  it('adds a note when the reply hit the length limit', async () => {
    const surface = createRecordingSurface();
    const writer = createStreamingWriter({ surface });
    writer.append('The answer is');
    const reply = await settle(writer.finish({ finishReason: 'length' }));
    expect(surface.messageTexts.get('message-1')).toBe(`The answer is\n\n_${lengthLimitNote}_`);
    expect(reply.text).toBe('The answer is');
    expect(reply.isComplete).toBe(true);
  });

  it('shows the engine notes as italic lines below the text', async () => {
    const surface = createRecordingSurface();
    const writer = createStreamingWriter({ surface });
    writer.append('Done.\n');
    await settle(
      writer.finish({
        finishReason: 'length',
        notes: ['I dropped the 4 oldest messages to fit the context', 'two\nlines'],
      }),
    );
    expect(surface.messageTexts.get('message-1')).toBe(
      `Done.\n\n_${lengthLimitNote}_\n_I dropped the 4 oldest messages to fit the context_\n_two lines_`,
    );
  });

  it('puts notes that would overflow the last message into a new one', async () => {
    const surface = createRecordingSurface({ maxMessageLength: 100 });
    const writer = createStreamingWriter({ surface });
    const text = 'x '.repeat(45);
    writer.append(text);
    const reply = await settle(writer.finish({ notes: ['a note that does not fit'] }));
    expect([...surface.messageTexts.values()]).toEqual([text, '_a note that does not fit_']);
    expect(reply.messages).toEqual([{ id: 'message-1' }, { id: 'message-2' }]);
  });

  it('posts something when the model wrote nothing', async () => {
    const surface = createRecordingSurface();
    const reply = await settle(createStreamingWriter({ surface }).finish({ finishReason: 'stop' }));
    expect([...surface.messageTexts.values()]).toEqual([noReplyText]);
    expect(reply).toMatchObject({ text: '', messages: [{ id: 'message-1' }], isComplete: true });

    const notedSurface = createRecordingSurface();
    const notedWriter = createStreamingWriter({ surface: notedSurface });
    notedWriter.append('  \n');
    await settle(notedWriter.finish({ notes: ['the model returned no text'] }));
    expect([...notedSurface.messageTexts.values()]).toEqual(['_the model returned no text_']);
  });

  it('keeps the partial text and adds a cut-off note on fail', async () => {
    const surface = createRecordingSurface();
    const writer = createStreamingWriter({ surface });
    await streamText(writer, 'Step one is to');
    const reply = await settle(writer.fail({ reason: 'the model stopped answering' }));
    expect([...surface.messageTexts.values()]).toEqual([
      'Step one is to\n\n_⚠ reply cut off: the model stopped answering_',
    ]);
    expect(reply).toMatchObject({ text: 'Step one is to', isComplete: false });
  });

  it('posts the reason alone, not a cut-off note, when it fails before any text', async () => {
    const surface = createRecordingSurface();
    const reply = await settle(createStreamingWriter({ surface }).fail({ reason: 'the gateway is down' }));
    expect(surface.calls.map((call) => [call.kind, call.text])).toEqual([
      ['post', '_⚠ the gateway is down_'],
    ]);
    expect(reply).toMatchObject({ text: '', messages: [{ id: 'message-1' }], isComplete: false });
  });

  it('ignores text appended after it closed, and closes only once', async () => {
    const surface = createRecordingSurface();
    const writer = createStreamingWriter({ surface });
    writer.append('Hello');
    const finished = writer.finish();
    writer.append(' late');
    expect(writer.fail({ reason: 'too late' })).toBe(finished);
    const reply = await settle(finished);
    expect(reply.text).toBe('Hello');
    expect([...surface.messageTexts.values()]).toEqual(['Hello']);
  });
});

describe('createStreamingWriter when the platform fails', () => {
  it('reports a failed edit, keeps streaming and recovers with the next edit', async () => {
    const errors: unknown[] = [];
    const surface = createRecordingSurface({ shouldReject: (_call, callIndex) => callIndex === 1 });
    const writer = createStreamingWriter({ surface, onError: (error) => errors.push(error) });
    const text = words(200);
    await streamText(writer, text);
    const reply = await settle(writer.finish());
    expect(errors).toEqual([new Error('platform unavailable')]);
    expect(surface.calls[1]?.outcome).toBe('rejected');
    expect(surface.messageTexts.get('message-1')).toBe(text);
    expect(reply.text).toBe(text);
    expectPacedCalls(surface, 'message-1', 1000);
  });

  it('retries a failed first post', async () => {
    const errors: unknown[] = [];
    const surface = createRecordingSurface({ shouldReject: (_call, callIndex) => callIndex === 0 });
    const writer = createStreamingWriter({ surface, onError: (error) => errors.push(error) });
    writer.append('Hello');
    await vi.advanceTimersByTimeAsync(10);
    expect(errors).toHaveLength(1);
    writer.append(' world');
    const reply = await settle(writer.finish());
    expect(surface.calls.map((call) => [call.kind, call.text, call.outcome])).toEqual([
      ['post', 'Hello', 'rejected'],
      ['post', 'Hello world', 'accepted'],
    ]);
    expect(reply.messages).toEqual([{ id: 'message-2' }]);
  });

  it('does not break the stream when the error callback throws', async () => {
    const surface = createRecordingSurface({ shouldReject: (_call, callIndex) => callIndex === 1 });
    const writer = createStreamingWriter({
      surface,
      onError: () => {
        throw new Error('logger broke');
      },
    });
    await streamText(writer, words(100));
    await expect(settle(writer.finish())).resolves.toMatchObject({ text: words(100) });
  });

  it('rejects finish when neither the final edit nor a new message can land, reporting each failure once', async () => {
    const errors: unknown[] = [];
    const surface = createRecordingSurface();
    const writer = createStreamingWriter({
      surface,
      onError: (error) => errors.push(error),
      finalWriteRetryWindowMs: 10_000,
    });
    writer.append('Hello');
    await vi.advanceTimersByTimeAsync(10);
    writer.append(' world');
    surface.shouldReject = () => true;
    const finished = writer.finish();
    const outcome = expect(finished).rejects.toThrow('platform unavailable');
    await vi.runAllTimersAsync();
    await outcome;
    const failedCalls = surface.calls.filter((call) => call.outcome === 'rejected');
    // Every failed call but the last one (which rejects `finish`) was reported, none twice.
    expect(errors).toHaveLength(failedCalls.length - 1);
    expect(failedCalls.at(-1)?.kind).toBe('post');
  });

  it('retries a final edit that fails for a while, with growing pauses, until it lands', async () => {
    const surface = createRecordingSurface();
    const writer = createStreamingWriter({ surface });
    writer.append('Hello');
    await vi.advanceTimersByTimeAsync(10);
    writer.append(' world, the whole answer');
    let failuresLeft = 5;
    surface.shouldReject = (call) => call.kind === 'edit' && failuresLeft-- > 0;
    const reply = await settle(writer.finish({ notes: ['a note'] }));
    expect([...surface.messageTexts.values()]).toEqual(['Hello world, the whole answer\n\n_a note_']);
    const edits = surface.calls.filter((call) => call.kind === 'edit');
    expect(edits.map((call) => call.outcome)).toEqual([...Array(5).fill('rejected'), 'accepted']);
    const pauses = edits.slice(1).map((call, index) => call.startedAtMs - (edits[index]?.endedAtMs ?? 0));
    for (const [index, pause] of pauses.entries()) {
      if (index > 0) expect(pause).toBeGreaterThanOrEqual(pauses[index - 1] ?? 0);
    }
    expect(pauses.at(-1)).toBeGreaterThan(pauses[0] ?? 0);
    expect(reply).toMatchObject({ text: 'Hello world, the whole answer', isComplete: true });
  });

  it.each([
    { what: 'posts', outageMs: 25_000 },
    { what: 'posts', outageMs: 120_000 },
    { what: 'edits', outageMs: 25_000 },
    { what: 'edits', outageMs: 120_000 },
  ])(
    'lands a reply within 2 s of the platform answering again after $outageMs ms of failing $what',
    async ({ what, outageMs }) => {
      const surface = createRecordingSurface({ callDurationMs: 50 });
      surface.shouldReject = (call) => Date.now() < outageMs && (what === 'posts') === (call.kind === 'post');
      const writer = createStreamingWriter({ surface });
      await streamText(writer, words(200));
      const reply = await settle(writer.finish({ actions: [{ id: 'regenerate', label: 'Regenerate' }] }));
      expect([...surface.messageTexts.values()]).toEqual([words(200)]);
      expect(reply.isComplete).toBe(true);
      const landed = surface.calls.filter((call) => call.outcome === 'accepted').at(-1);
      // The call that lands ends at most one pause (2 s) and its own 50 ms after the platform is back.
      expect(landed?.endedAtMs).toBeGreaterThanOrEqual(outageMs);
      expect(landed?.endedAtMs).toBeLessThanOrEqual(outageMs + 2_050);
    },
  );

  it('waits as long as the platform asks before retrying a final edit', async () => {
    const surface: RecordingSurface & { classifyFailure?: Surface['classifyFailure'] } =
      createRecordingSurface();
    surface.classifyFailure = () => ({ isRetryable: true, retryAfterMs: 7_000 });
    const writer = createStreamingWriter({ surface });
    writer.append('Hello');
    await vi.advanceTimersByTimeAsync(10);
    writer.append(' world');
    let failuresLeft = 1;
    surface.shouldReject = (call) => call.kind === 'edit' && failuresLeft-- > 0;
    await settle(writer.finish());
    const edits = surface.calls.filter((call) => call.kind === 'edit');
    expect(edits).toHaveLength(2);
    expect((edits[1]?.startedAtMs ?? 0) - (edits[0]?.endedAtMs ?? 0)).toBeGreaterThanOrEqual(7_000);
  });

  it('carries the rest of the reply in a new message, with a note, when the final edit never lands', async () => {
    const errors: unknown[] = [];
    const surface = createRecordingSurface();
    const writer = createStreamingWriter({
      surface,
      onError: (error) => errors.push(error),
      finalWriteRetryWindowMs: 60_000,
    });
    writer.append('The first part of the answer');
    await vi.advanceTimersByTimeAsync(10);
    writer.append(', and the rest of it.');
    surface.shouldReject = (call) => call.kind === 'edit';
    const reply = await settle(writer.finish({ notes: ['a note'] }));
    expect([...surface.messageTexts.values()]).toEqual([
      'The first part of the answer',
      '_⚠ I could not finish the message above, so the rest of the reply is here._\n\n, and the rest of it.\n\n_a note_',
    ]);
    expect(reply.messages).toHaveLength(2);
    expect(reply.isComplete).toBe(true);
    // It kept trying for the whole window before giving up on the edit.
    const edits = surface.calls.filter((call) => call.kind === 'edit');
    expect((edits.at(-1)?.startedAtMs ?? 0) - (edits[0]?.startedAtMs ?? 0)).toBeGreaterThanOrEqual(30_000);
    expect(errors.length).toBe(edits.length);
  });

  it('does not retry a final edit the platform refuses for good, and carries the whole text when the cut is inside a code block', async () => {
    const surface: RecordingSurface & { classifyFailure?: Surface['classifyFailure'] } =
      createRecordingSurface();
    surface.classifyFailure = () => ({ isRetryable: false });
    const writer = createStreamingWriter({ surface });
    writer.append('Look:\n```ts\nconst a = 1;\n');
    await vi.advanceTimersByTimeAsync(10);
    writer.append('const b = 2;\n```\nDone.');
    surface.shouldReject = (call) => call.kind === 'edit';
    await settle(writer.finish());
    expect(surface.calls.filter((call) => call.kind === 'edit')).toHaveLength(1);
    expect([...surface.messageTexts.values()].at(-1)).toBe(
      '_⚠ I could not finish the message above, so here is the whole reply._\n\nLook:\n```ts\nconst a = 1;\nconst b = 2;\n```\nDone.',
    );
  });
});

describe('createStreamingWriter where edits are scarce (firstPostHoldMs)', () => {
  it('posts a reply that ends within the hold whole, in one call with its final buttons', async () => {
    const surface = createRecordingSurface({ minEditIntervalMs: 1000, firstPostHoldMs: 3000 });
    const postOptions: unknown[] = [];
    const post = surface.post.bind(surface);
    surface.post = (text, options) => {
      postOptions.push(options);
      return post(text, options);
    };
    const regenerate = { id: 'regenerate', label: 'Regenerate' };
    const writer = createStreamingWriter({
      surface,
      actionsWhileStreaming: [{ id: 'stop', label: 'Stop' }],
    });
    await streamText(writer, 'A short answer, written in a second.', 4, 100);
    expect(surface.calls).toEqual([]);
    const reply = await settle(writer.finish({ actions: [regenerate] }));
    expect(surface.calls.map((call) => [call.kind, call.text])).toEqual([
      ['post', 'A short answer, written in a second.'],
    ]);
    expect(postOptions).toEqual([{ actions: [regenerate], isWhole: true }]);
    expect(reply.editCount).toBe(0);
  });

  it('never holds a waiting line, and asks for the hold only once there is model text', async () => {
    const surface = createRecordingSurface({ minEditIntervalMs: 1000, firstPostHoldMs: 3000 });
    let asked = 0;
    surface.holdFirstPost = () => {
      asked += 1;
      return 3000;
    };
    const writer = createStreamingWriter({ surface });
    writer.showWaiting('_still waiting for the model…_');
    expect(surface.calls.map((call) => call.text)).toEqual(['_still waiting for the model…_']);
    expect(asked).toBe(0);
    writer.append('Here it is.');
    await settle(writer.finish());
    expect([...surface.messageTexts.values()]).toEqual(['Here it is.']);
  });

  it('does not call a post whole while an earlier message still waits for its final edit', async () => {
    const surface = createRecordingSurface({
      maxMessageLength: 100,
      minEditIntervalMs: 1000,
      callDurationMs: 50,
    });
    const postOptions: unknown[] = [];
    const post = surface.post.bind(surface);
    surface.post = (text, options) => {
      postOptions.push(options);
      return post(text, options);
    };
    const regenerate = { id: 'regenerate', label: 'Regenerate' };
    const writer = createStreamingWriter({ surface, actionsWhileStreaming: [{ id: 'stop', label: 'Stop' }] });
    writer.append('First words.');
    writer.append(` ${words(40)}`);
    await settle(writer.finish({ actions: [regenerate] }));
    expect(surface.messageTexts.size).toBeGreaterThan(1);
    // Every post that said "whole" carried the final buttons, and its message was never edited after.
    for (const [index, options] of postOptions.entries()) {
      if ((options as { isWhole?: boolean } | undefined)?.isWhole !== true) continue;
      expect(options).toMatchObject({ actions: [regenerate] });
      const id = `message-${index + 1}`;
      expect(callsFor(surface, id).filter((call) => call.kind === 'edit')).toEqual([]);
    }
  });

  it('posts what there is once the hold is over, and edits from there as usual', async () => {
    const surface = createRecordingSurface({ minEditIntervalMs: 1000, firstPostHoldMs: 2000 });
    const writer = createStreamingWriter({ surface });
    writer.append('A long answer');
    await vi.advanceTimersByTimeAsync(1999);
    expect(surface.calls).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(surface.calls).toEqual([
      expect.objectContaining({ kind: 'post', text: 'A long answer', startedAtMs: 2000 }),
    ]);
    writer.append(' goes on.');
    await settle(writer.finish());
    expect(surface.calls.map((call) => [call.kind, call.text])).toEqual([
      ['post', 'A long answer'],
      ['edit', 'A long answer goes on.'],
    ]);
  });
});

describe('createStreamingWriter where edits are scarce but posts are not (earlyPartDelayMs)', () => {
  const regenerate = { id: 'regenerate', label: 'Regenerate' };
  const stop = { id: 'stop', label: 'Stop' };
  const recordPostOptions = (surface: RecordingSurface): unknown[] => {
    const postOptions: unknown[] = [];
    const post = surface.post.bind(surface);
    surface.post = (text, options) => {
      postOptions.push(options);
      return post(text, options);
    };
    return postOptions;
  };

  it('shows what the reply has at once, never edits it, and posts the rest whole when the reply ends', async () => {
    const surface = createRecordingSurface({
      minEditIntervalMs: 1000,
      firstPostHoldMs: 15_000,
      earlyPartDelayMs: 300,
    });
    const postOptions = recordPostOptions(surface);
    const writer = createStreamingWriter({ surface, actionsWhileStreaming: [stop] });
    const text = `${words(60)}.\n\nA second paragraph, **bold** and \`code\`, to the end.`;
    await streamText(writer, text, 4, 20);
    const reply = await settle(writer.finish({ actions: [regenerate] }));

    const [early, rest] = surface.calls;
    // Text ready at 0 ms, the part 300 ms later, cut after a word, with what had arrived by then.
    expect(early).toMatchObject({ kind: 'post', startedAtMs: 300 });
    expect(early?.text).toMatch(/^word0 word1 .* $/);
    expect(text.startsWith(early?.text ?? '-')).toBe(true);
    expect(rest?.kind).toBe('post');
    expect(surface.calls).toHaveLength(2);
    expect([...surface.messageTexts.values()].join('')).toBe(text);
    // The part carries no buttons (it is never edited to take Stop away); the rest carries the final ones.
    expect(postOptions).toEqual([
      { actions: [], isFinal: true },
      { actions: [regenerate], isWhole: true },
    ]);
    expect(reply.editCount).toBe(0);
    expect(reply.text).toBe(text);
  });

  it('posts a reply that ends before the early part is due whole, in one message', async () => {
    const surface = createRecordingSurface({
      minEditIntervalMs: 1000,
      firstPostHoldMs: 15_000,
      earlyPartDelayMs: 300,
    });
    const writer = createStreamingWriter({ surface });
    await streamText(writer, 'A short answer.', 5, 50);
    await settle(writer.finish());
    expect(surface.calls.map((call) => [call.kind, call.text])).toEqual([['post', 'A short answer.']]);
  });

  it('never shows a few words alone as an early part: a short reply still arriving waits and goes out whole', async () => {
    const surface = createRecordingSurface({
      minEditIntervalMs: 1000,
      firstPostHoldMs: 15_000,
      earlyPartDelayMs: 300,
    });
    const writer = createStreamingWriter({ surface });
    // 20 characters by 400 ms, well past the early part's time: too few to stand as a message.
    await streamText(writer, 'Answer to the quest', 5, 100);
    await vi.advanceTimersByTimeAsync(500);
    expect(surface.calls).toEqual([]);
    await streamText(writer, 'ion.', 4, 100);
    await settle(writer.finish());
    expect(surface.calls.map((call) => [call.kind, call.text])).toEqual([
      ['post', 'Answer to the question.'],
    ]);
  });

  it('does not cut inside a code block, an open span or a table: it waits for a clean place', async () => {
    const surface = createRecordingSurface({
      minEditIntervalMs: 1000,
      firstPostHoldMs: 15_000,
      earlyPartDelayMs: 300,
    });
    const writer = createStreamingWriter({ surface });
    await streamText(writer, '```ts\nconst a = 1;\nconst b = 2;\n', 6, 100);
    expect(surface.calls).toEqual([]);
    await streamText(writer, '```\n\nAfter the code, words.', 6, 100);
    await vi.advanceTimersByTimeAsync(200);
    // The first clean place is after the block; the part ends there or later, never inside it.
    expect(surface.calls).toHaveLength(1);
    expect(surface.calls[0]?.text).toMatch(/^```ts\nconst a = 1;\nconst b = 2;\n```\n/);
    await settle(writer.finish());
    expect([...surface.messageTexts.values()].join('')).toBe(
      '```ts\nconst a = 1;\nconst b = 2;\n```\n\nAfter the code, words.',
    );
  });

  it('streams natively instead when the surface can start a stream then, in one message', async () => {
    const surface = createRecordingSurface({
      minEditIntervalMs: 1000,
      firstPostHoldMs: 15_000,
      earlyPartDelayMs: 300,
    });
    const streamed: string[] = [];
    surface.stream = async (text) => {
      streamed.push(text);
      return surface.post(text);
    };
    const writer = createStreamingWriter({ surface });
    const text = `${words(30)}.`;
    await streamText(writer, text, 4, 20);
    await settle(writer.finish());
    expect(streamed).toHaveLength(1);
    expect(surface.messageTexts.size).toBe(1);
    expect([...surface.messageTexts.values()]).toEqual([text]);
  });

  it('never makes an early part longer than a message', async () => {
    const surface = createRecordingSurface({
      maxMessageLength: 40,
      minEditIntervalMs: 1000,
      firstPostHoldMs: 15_000,
      earlyPartDelayMs: 300,
    });
    const writer = createStreamingWriter({ surface });
    // 42 characters, the last space the 41st: too few past the limit for a rollover cut to settle.
    const text = 'alpha beta gamma delta epsilon zeta etas t';
    writer.append(text);
    await vi.advanceTimersByTimeAsync(300);
    expect(surface.calls).toHaveLength(1);
    expect(surface.calls[0]?.text.length).toBeLessThanOrEqual(40);
    writer.append('heta iota kappa.');
    await settle(writer.finish());
    expect([...surface.messageTexts.values()].join('')).toBe(`${text}heta iota kappa.`);
  });

  it('keeps the whole reply when it ends while a stream for its early part is being asked for', async () => {
    const surface = createRecordingSurface({
      minEditIntervalMs: 1000,
      firstPostHoldMs: 15_000,
      earlyPartDelayMs: 300,
    });
    // Slack's chat.startStream, refused after a round trip.
    surface.stream = () => new Promise((resolve) => setTimeout(() => resolve('not-available'), 200));
    const writer = createStreamingWriter({ surface, actionsWhileStreaming: [stop] });
    const text = `${words(40)}. The end of the answer.`;
    writer.append(text.slice(0, 200));
    await vi.advanceTimersByTimeAsync(350);
    writer.append(text.slice(200));
    const reply = await settle(writer.finish({ actions: [regenerate] }));
    expect([...surface.messageTexts.values()].join('')).toBe(text);
    expect(reply.text).toBe(text);
  });

  it('posts as usual when the text has no clean cut left by the time the part goes out', async () => {
    const surface = createRecordingSurface({
      maxMessageLength: 500,
      minEditIntervalMs: 100,
      firstPostHoldMs: 15_000,
      earlyPartDelayMs: 50,
    });
    surface.stream = () => new Promise((resolve) => setTimeout(() => resolve('not-available'), 200));
    const writer = createStreamingWriter({ surface });
    const intro = 'Here is the program you asked for, in full:\n```python\n';
    const code = Array.from({ length: 80 }, (_, index) => `x${index} = ${index} + 1\n`).join('');
    writer.append(intro);
    await vi.advanceTimersByTimeAsync(120);
    writer.append(code);
    await vi.advanceTimersByTimeAsync(600);
    const ending = '```\nDone.';
    writer.append(ending);
    await settle(writer.finish());
    const messages = [...surface.messageTexts.values()];
    // A rollover inside the code block closes the fence and opens it again in the next message.
    expect(messages.join('').replaceAll('``````python\n', '')).toBe(intro + code + ending);
    for (const message of messages) expect(message.length).toBeLessThanOrEqual(500);
  });

  it('posts the rest and edits it as usual once the hold is over, the part still untouched', async () => {
    const surface = createRecordingSurface({
      minEditIntervalMs: 1000,
      firstPostHoldMs: 2000,
      earlyPartDelayMs: 300,
    });
    const writer = createStreamingWriter({ surface });
    const text = words(200);
    await streamText(writer, text, 5, 20);
    const reply = await settle(writer.finish());
    const [early, ...others] = surface.calls;
    expect(early).toMatchObject({ kind: 'post', startedAtMs: 300 });
    expect(callsFor(surface, 'message-1')).toHaveLength(1);
    expect(others[0]).toMatchObject({ kind: 'post', messageId: 'message-2', startedAtMs: 2000 });
    expect(reply.editCount).toBeGreaterThan(0);
    expect([...surface.messageTexts.values()].join('')).toBe(text);
  });
});
