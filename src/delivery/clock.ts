/**
 * Time as the streaming writer sees it. The default reads the globals at each call, so vitest's
 * fake timers (which replace `Date` and `setTimeout` on `globalThis`) drive it without a custom clock.
 */
export interface Clock {
  /** Milliseconds since the epoch, or any monotonic origin; only differences are used. */
  now(): number;
  /** Runs `callback` once after `delayMs`; returns a handle for `clearTimeout`. */
  setTimeout(callback: () => void, delayMs: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, delayMs) => globalThis.setTimeout(callback, delayMs),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>),
};
