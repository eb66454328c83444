import { describe, expect, it } from 'vitest';
import { createRepliesAwaitingText } from '../../adapters/discord/replies-awaiting-text.ts';

describe('replies awaiting their first text', () => {
  it('counts a burst of replies begun within a second, until each posts', () => {
    const awaiting = createRepliesAwaitingText();
    const posted = Array.from({ length: 15 }, (_, index) => awaiting.begin(index * 20));
    expect(awaiting.count(400)).toBe(15);
    posted[0]?.();
    posted[0]?.();
    expect(awaiting.count(400)).toBe(14);
  });

  it('stops counting a reply a second after it began, so slow models do not keep typing away', () => {
    // 2.5 replies a second, each 5 s from its first token: never more than 3 count at once.
    const awaiting = createRepliesAwaitingText();
    let highest = 0;
    for (let atMs = 0; atMs <= 10_000; atMs += 400) {
      awaiting.begin(atMs);
      highest = Math.max(highest, awaiting.count(atMs));
    }
    expect(highest).toBeLessThanOrEqual(3);
    expect(awaiting.count(12_000)).toBe(0);
  });
});
