import { describe, expect, it } from 'vitest';
import { createInMemoryDeduper } from '../../src/state/dedupe.ts';

/** A clock the test moves by hand. */
function createManualClock(startMs = 1_000_000): { now: () => number; advanceMs: (ms: number) => void } {
  let nowMs = startMs;
  return { now: () => nowMs, advanceMs: (ms) => (nowMs += ms) };
}

describe('createInMemoryDeduper', () => {
  it('accepts an event id once and rejects its retries', async () => {
    const deduper = createInMemoryDeduper();
    expect(await deduper.isFirstSighting('Ev01', 60_000)).toBe(true);
    expect(await deduper.isFirstSighting('Ev01', 60_000)).toBe(false);
    expect(await deduper.isFirstSighting('Ev01', 60_000)).toBe(false);
    expect(await deduper.isFirstSighting('Ev02', 60_000)).toBe(true);
  });

  it('accepts the same id again once its ttl has passed since the first sighting', async () => {
    const clock = createManualClock();
    const deduper = createInMemoryDeduper({ now: clock.now });
    expect(await deduper.isFirstSighting('Ev01', 1_000)).toBe(true);
    clock.advanceMs(999);
    // A retry inside the window does not extend it.
    expect(await deduper.isFirstSighting('Ev01', 1_000)).toBe(false);
    clock.advanceMs(1);
    expect(await deduper.isFirstSighting('Ev01', 1_000)).toBe(true);
  });

  it('answers true to exactly one of many simultaneous deliveries', async () => {
    const deduper = createInMemoryDeduper();
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => deduper.isFirstSighting('Ev01', 60_000)),
    );
    expect(answers.filter(Boolean)).toHaveLength(1);
  });

  it('forgets the oldest ids when full, keeping memory bounded', async () => {
    const deduper = createInMemoryDeduper({ maxEntries: 3 });
    for (const id of ['Ev01', 'Ev02', 'Ev03', 'Ev04']) {
      expect(await deduper.isFirstSighting(id, 60_000)).toBe(true);
    }
    // Ev01 was evicted to make room for Ev04; the three newest are still remembered.
    expect(await deduper.isFirstSighting('Ev04', 60_000)).toBe(false);
    expect(await deduper.isFirstSighting('Ev03', 60_000)).toBe(false);
    expect(await deduper.isFirstSighting('Ev01', 60_000)).toBe(true);
  });

  it('stays small under a stream of expiring ids', async () => {
    const clock = createManualClock();
    const deduper = createInMemoryDeduper({ now: clock.now, maxEntries: 50 });
    for (let index = 0; index < 10_000; index += 1) {
      expect(await deduper.isFirstSighting(`Ev${index}`, 10)).toBe(true);
      clock.advanceMs(1);
    }
    // The early ids expired and were dropped, so they count as new; a recent one is still known.
    expect(await deduper.isFirstSighting('Ev0', 10)).toBe(true);
    expect(await deduper.isFirstSighting('Ev9995', 10)).toBe(false);
  });

  it('refuses a maxEntries that could not hold anything', () => {
    expect(() => createInMemoryDeduper({ maxEntries: 0 })).toThrow(RangeError);
  });
});
