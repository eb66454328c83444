import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { showWhileWaiting, stillWaitingText } from '../../src/conversation/waiting-indicator.ts';
import type { StreamingWriter } from '../../src/delivery/streaming-writer.ts';
import type { Surface } from '../../src/delivery/surface.ts';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function recordingWriter() {
  const shown: string[] = [];
  const writer = { showWaiting: (text: string) => shown.push(text) } as unknown as StreamingWriter;
  return { writer, shown };
}

const surface = { limits: { maxMessageLength: 2000, minEditIntervalMs: 0 } } as unknown as Surface;
const indicators = { stillWaitingAfterMs: 5_000, stillWaitingUpdateMs: 5_000, typingIntervalMs: 8_000 };

describe('the waiting line', () => {
  it('appears after 5 s and counts up every 5 s, saying nothing has answered', () => {
    const { writer, shown } = recordingWriter();
    const waiting = showWhileWaiting({ writer, surface, indicators });
    vi.advanceTimersByTime(4_999);
    expect(shown).toEqual([]);
    vi.advanceTimersByTime(10_001);
    expect(shown).toEqual([
      '_⏳ still waiting: the model service has not answered yet · 5 s_',
      '_⏳ still waiting: the model service has not answered yet · 10 s_',
      '_⏳ still waiting: the model service has not answered yet · 15 s_',
    ]);
    waiting.stop();
    vi.advanceTimersByTime(60_000);
    expect(shown).toHaveLength(3);
  });

  it('tells a slow model (the gateway took the request) from a gateway that has not answered', () => {
    const { writer, shown } = recordingWriter();
    const waiting = showWhileWaiting({ writer, surface, indicators });
    vi.advanceTimersByTime(5_000);
    waiting.responseStarted();
    vi.advanceTimersByTime(5_000);
    expect(shown).toEqual([
      '_⏳ still waiting: the model service has not answered yet · 5 s_',
      '_⏳ still waiting for the model to start writing (the model service took the request) · 10 s_',
    ]);
    waiting.stop();
  });

  it('shows a step at once, then its time; the next answered request is the model again', () => {
    const { writer, shown } = recordingWriter();
    const waiting = showWhileWaiting({ writer, surface, indicators });
    vi.advanceTimersByTime(2_000);
    waiting.showStatus('🔎 searching: cat names');
    vi.advanceTimersByTime(3_000);
    waiting.responseStarted();
    vi.advanceTimersByTime(5_000);
    expect(shown).toEqual([
      '_🔎 searching: cat names_',
      '_🔎 searching: cat names · 5 s_',
      '_⏳ still waiting for the model to start writing (the model service took the request) · 10 s_',
    ]);
    waiting.stop();
  });

  it('rounds to whole seconds', () => {
    expect(stillWaitingText({ elapsedMs: 64_600, hasResponseStarted: false })).toBe(
      '_⏳ still waiting: the model service has not answered yet · 65 s_',
    );
  });
});
