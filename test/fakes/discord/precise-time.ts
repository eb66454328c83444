/**
 * Epoch milliseconds with sub-millisecond precision. The benchmark measures latencies of a few
 * milliseconds, which `Date.now()` would round away.
 */
export function preciseNowMs(): number {
  return performance.timeOrigin + performance.now();
}

/** An ISO 8601 timestamp as Discord writes them, e.g. `2025-01-01T00:00:00.000000+00:00`. */
export function discordTimestamp(epochMs: number): string {
  return new Date(Math.floor(epochMs)).toISOString().replace('Z', '000+00:00');
}
