/** The value below which `fraction` of `values` fall (nearest rank); `undefined` for no values. */
export function percentile(values: readonly number[], fraction: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((left, right) => left - right);
  const rank = Math.ceil(fraction * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/** The arithmetic mean; `undefined` for no values. */
export function mean(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** p50 and p99 of a sample, the pair every latency in the table is reported as. */
export interface LatencySummary {
  p50: number | undefined;
  p99: number | undefined;
}

export function summarize(values: readonly number[]): LatencySummary {
  return { p50: percentile(values, 0.5), p99: percentile(values, 0.99) };
}
