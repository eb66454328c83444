/** The most of `timesMs` that fall in any `windowMs` (a sliding window, so no fixed second hides a burst). */
export function busiestWindowCount(timesMs: readonly number[], windowMs = 1_000): number {
  const sorted = timesMs.toSorted((first, second) => first - second);
  let most = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end += 1) {
    while ((sorted[end] ?? 0) - (sorted[start] ?? 0) >= windowMs) start += 1;
    most = Math.max(most, end - start + 1);
  }
  return most;
}
