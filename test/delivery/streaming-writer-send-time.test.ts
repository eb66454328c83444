import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createStreamingWriter } from '../../src/delivery/streaming-writer.ts';
import type { PostedMessage, Surface } from '../../src/delivery/surface.ts';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/**
 * A surface whose calls wait for budget in `enqueue`, as an outbound queue makes them wait, and then
 * send the text the writer gives at that moment.
 */
function budgetWaitingSurface({ waitMs }: { waitMs: number }) {
  const calls: Array<{ kind: 'post' | 'edit'; text: string }> = [];
  const shown = new Map<string, string>();
  let count = 0;
  const surface: Surface = {
    limits: { maxMessageLength: 2_000, minEditIntervalMs: 1_000 },
    async enqueue(_call, run) {
      await new Promise((resolve) => setTimeout(resolve, waitMs));
      return run();
    },
    async post(sent: string) {
      count += 1;
      const message: PostedMessage = { id: `m${count}` };
      calls.push({ kind: 'post', text: sent });
      shown.set(message.id, sent);
      return message;
    },
    async edit(message: PostedMessage, sent: string) {
      calls.push({ kind: 'edit', text: sent });
      shown.set(message.id, sent);
    },
  };
  return { surface, calls, shown };
}

describe('streaming writer with a surface that sends the text of the moment', () => {
  it('a post that waited carries everything written meanwhile, and no edit repeats it', async () => {
    const { surface, calls, shown } = budgetWaitingSurface({ waitMs: 3_000 });
    const writer = createStreamingWriter({ surface });
    writer.append('Hello');
    await vi.advanceTimersByTimeAsync(100);
    writer.append(' there, the whole answer arrived while the post waited.');
    const finished = writer.finish({ finishReason: 'stop' });
    await vi.advanceTimersByTimeAsync(10_000);
    const delivered = await finished;
    expect(calls).toEqual([
      { kind: 'post', text: 'Hello there, the whole answer arrived while the post waited.' },
    ]);
    expect(shown.get('m1')).toBe(delivered.text);
    expect(delivered.editCount).toBe(0);
  });

  it('an edit that waited sends the newest text, and the final text stays exact', async () => {
    const { surface, calls, shown } = budgetWaitingSurface({ waitMs: 1_500 });
    const writer = createStreamingWriter({ surface });
    const words = Array.from({ length: 30 }, (_, index) => `word${index} `);
    for (const word of words) {
      writer.append(word);
      await vi.advanceTimersByTimeAsync(200);
    }
    const finished = writer.finish({ finishReason: 'stop' });
    await vi.advanceTimersByTimeAsync(20_000);
    await finished;
    expect(shown.get('m1')).toBe(words.join(''));
    // Every call showed a prefix of the reply that only grew.
    const lengths = calls.map((call) => call.text.length);
    expect([...lengths].sort((first, second) => first - second)).toEqual(lengths);
    expect(calls.at(-1)?.text).toBe(words.join(''));
  });
});
