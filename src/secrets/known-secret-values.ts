/**
 * Secrets parley learns while it runs (a Slack workspace's bot token, read from its sealed
 * installation), which the environment's list cannot hold: the log scrubs these too. A set, so a token
 * read on every event is one entry; a refreshed token adds its new value and keeps the old one, which
 * may still sit in a late error.
 */
const learnedSecretValues = new Set<string>();

/** The shortest value worth scrubbing: anything shorter would blank ordinary words. */
const minimumSecretLength = 8;

/** Adds a value the log must never show; undefined and short values are ignored. */
export function rememberSecretValue(value: string | undefined | null): void {
  if (typeof value === 'string' && value.length >= minimumSecretLength) learnedSecretValues.add(value);
}

/** The secrets learned so far, for the log's scrubber. */
export function learnedSecrets(): ReadonlySet<string> {
  return learnedSecretValues;
}
