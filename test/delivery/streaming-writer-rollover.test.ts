import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createStreamingWriter, type StreamingWriter } from '../../src/delivery/streaming-writer.ts';
import { callsFor, createRecordingSurface, type RecordingSurface } from '../support/recording-surface.ts';
import { hasBalancedFences, isInsideWord, sourceBodies } from './markdown-checks.ts';
import { createRandom, randomMarkdown } from './random-markdown.ts';

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});

afterEach(() => {
  vi.useRealTimers();
});

async function streamText(writer: StreamingWriter, text: string, nextDeltaLength: () => number) {
  let index = 0;
  while (index < text.length) {
    const deltaLength = nextDeltaLength();
    writer.append(text.slice(index, index + deltaLength));
    index += deltaLength;
    await vi.advanceTimersByTimeAsync(15);
  }
}

/** Checks everything a finished multi-message reply must satisfy, and returns the final texts. */
function expectWellFormedReply(surface: RecordingSurface, text: string): string[] {
  const { maxMessageLength, minEditIntervalMs } = surface.limits;
  for (const call of surface.calls) expect(call.text.length).toBeLessThanOrEqual(maxMessageLength);
  expect(surface.maxCallsInFlightPerMessage()).toBe(1);
  const finalTexts = [...surface.messageTexts.values()];
  for (const finalText of finalTexts) expect(hasBalancedFences(finalText), finalText).toBe(true);
  const bodies = sourceBodies(finalTexts);
  expect(bodies.join('')).toBe(text);
  let cutIndex = 0;
  for (const body of bodies.slice(0, -1)) {
    cutIndex += body.length;
    expect(isInsideWord(text, cutIndex), `cut at ${cutIndex}`).toBe(false);
  }
  for (const messageId of surface.messageTexts.keys()) {
    const calls = callsFor(surface, messageId);
    for (const [index, call] of calls.entries()) {
      const previous = calls[index - 1];
      if (previous === undefined) continue;
      expect(call.startedAtMs - previous.startedAtMs).toBeGreaterThanOrEqual(minEditIntervalMs);
    }
  }
  return finalTexts;
}

function longReplyWithCode(): string {
  const prose = (count: number, seed: string) =>
    Array.from({ length: count }, (_, index) => `${seed}${index}`).join(' ');
  const code = Array.from(
    { length: 60 },
    (_, index) => `  const value${index} = computeSomething(${index}, 'argument number ${index}');`,
  ).join('\n');
  return [
    `# A long answer\n\n${prose(150, 'intro')}`,
    prose(60, 'middle'),
    `Here is the implementation:\n\n\`\`\`ts\nexport function example() {\n${code}\n}\n\`\`\``,
    `${prose(200, 'after')}\n\n- ${prose(10, 'item')}\n- ${prose(10, 'more')}`,
    `\`\`\`python\n${Array.from({ length: 80 }, (_, index) => `print(${index})`).join('\n')}\n\`\`\``,
    'That is everything.',
  ].join('\n\n');
}

describe('createStreamingWriter rollover', () => {
  it('rolls a long reply with a code block over into new messages at the Discord limit', async () => {
    const surface = createRecordingSurface({ maxMessageLength: 2000, minEditIntervalMs: 1000 });
    const writer = createStreamingWriter({ surface });
    const text = longReplyWithCode();
    expect(text.length).toBeGreaterThan(8000);
    await streamText(writer, text, () => 7);
    const postsBeforeFinish = surface.calls.filter((call) => call.kind === 'post').length;
    const reply = await (async () => {
      const finished = writer.finish({ finishReason: 'stop' });
      await vi.runAllTimersAsync();
      return finished;
    })();

    const finalTexts = expectWellFormedReply(surface, text);
    expect(finalTexts.length).toBeGreaterThanOrEqual(5);
    expect(postsBeforeFinish).toBe(finalTexts.length);
    expect(reply.messages).toHaveLength(finalTexts.length);
    expect(reply.text).toBe(text);
    const crossing = finalTexts.findIndex(
      (finalText, index) =>
        finalText.endsWith('\n```') && finalTexts[index + 1]?.startsWith('```ts\n  const'),
    );
    expect(crossing).toBeGreaterThanOrEqual(0);
  });

  it('finalises each full message before the reply ends', async () => {
    const surface = createRecordingSurface({ maxMessageLength: 2000, minEditIntervalMs: 1000 });
    const writer = createStreamingWriter({ surface });
    const text = longReplyWithCode();
    await streamText(writer, text.slice(0, 6000), () => 7);
    await vi.advanceTimersByTimeAsync(5000);
    const firstMessage = surface.messageTexts.get('message-1') ?? '';
    expect(text.startsWith(firstMessage)).toBe(true);
    expect(firstMessage.length).toBeGreaterThan(1000);
    expect(surface.messageTexts.size).toBeGreaterThanOrEqual(3);
  });

  it('puts notes after the last piece of a long reply', async () => {
    const surface = createRecordingSurface({ maxMessageLength: 2000 });
    const writer = createStreamingWriter({ surface });
    const text = longReplyWithCode();
    await streamText(writer, text, () => 40);
    const finished = writer.finish({ finishReason: 'length', notes: ['I dropped 2 messages'] });
    await vi.runAllTimersAsync();
    await finished;
    const finalTexts = [...surface.messageTexts.values()];
    expect(finalTexts.at(-1)).toMatch(/That is everything\.\n\n_⚠ .*_\n_I dropped 2 messages_$/);
    for (const finalText of finalTexts) expect(finalText.length).toBeLessThanOrEqual(2000);
  });

  it('skips a message that would hold nothing but a long run of whitespace', async () => {
    const surface = createRecordingSurface({ maxMessageLength: 100 });
    const writer = createStreamingWriter({ surface });
    await streamText(writer, `hello${' '.repeat(300)}world`, () => 9);
    const finished = writer.finish({ notes: ['a note'] });
    await vi.runAllTimersAsync();
    const reply = await finished;
    const finalTexts = [...surface.messageTexts.values()];
    expect(finalTexts.every((finalText) => /\S/.test(finalText))).toBe(true);
    expect(finalTexts[0]?.startsWith('hello')).toBe(true);
    expect(finalTexts.at(-1)).toMatch(/world\n\n_a note_$/);
    expect(reply.messages).toHaveLength(finalTexts.length);
  });

  it('keeps its invariants on many random replies, limits and delta sizes', async () => {
    for (let seed = 1; seed <= 40; seed += 1) {
      vi.setSystemTime(0);
      const random = createRandom(seed);
      const maxMessageLength = 80 + Math.floor(random() * 600);
      const minEditIntervalMs = [0, 250, 1000][seed % 3] ?? 0;
      const callDurationMs = [0, 40, 400][seed % 3] ?? 0;
      const surface = createRecordingSurface({ maxMessageLength, minEditIntervalMs, callDurationMs });
      const writer = createStreamingWriter({ surface });
      const text = randomMarkdown({ random, targetLength: 500 + Math.floor(random() * 2500) });
      await streamText(writer, text, () => 1 + Math.floor(random() * 30));
      const finished = writer.finish({ finishReason: 'stop' });
      await vi.runAllTimersAsync();
      const reply = await finished;
      expect(reply.text, `seed ${seed}`).toBe(text);
      expectWellFormedReply(surface, text);
    }
  });
});
