import type { Clock } from '../../src/delivery/clock.ts';

/** A clock a test moves by hand: timers fire, in time order, only inside `advanceTo` / `advanceBy`. */
export interface ManualClock extends Clock {
  advanceTo(atMs: number): Promise<void>;
  advanceBy(ms: number): Promise<void>;
  readonly pendingTimers: number;
}

export function createManualClock(startMs: number): ManualClock {
  let nowMs = startMs;
  let nextHandle = 1;
  const timers = new Map<number, { atMs: number; callback: () => void }>();
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  const clock: ManualClock = {
    now: () => nowMs,
    setTimeout(callback, delayMs) {
      const handle = nextHandle;
      nextHandle += 1;
      timers.set(handle, { atMs: nowMs + Math.max(0, delayMs), callback });
      return handle;
    },
    clearTimeout(handle) {
      timers.delete(handle as number);
    },
    async advanceTo(atMs) {
      for (;;) {
        const due = [...timers.entries()]
          .filter(([, timer]) => timer.atMs <= atMs)
          .sort(([, first], [, second]) => first.atMs - second.atMs)[0];
        if (due === undefined) break;
        const [handle, timer] = due;
        timers.delete(handle);
        nowMs = Math.max(nowMs, timer.atMs);
        timer.callback();
        await settle();
      }
      nowMs = Math.max(nowMs, atMs);
      await settle();
    },
    advanceBy(ms) {
      return clock.advanceTo(nowMs + ms);
    },
    get pendingTimers() {
      return timers.size;
    },
  };
  return clock;
}
