import type { ObservedText } from './world.ts';

/** One secret found where it must never be. */
export interface SecretLeak {
  /** Where it was: a log, a platform message, a request. */
  readonly source: string;
  /** Which secret, shown only by its first characters. */
  readonly secretPrefix: string;
}

/** Shorter pieces would match by chance; the secrets here are all longer than this. */
const minimumPieceLength = 12;

/**
 * Finds every secret in every text, whole or as a long enough piece of its middle (a truncated or
 * wrapped line still leaks what it shows).
 */
export function findSecretLeaks({
  texts,
  secrets,
}: {
  texts: readonly ObservedText[];
  secrets: readonly string[];
}): SecretLeak[] {
  const leaks: SecretLeak[] = [];
  for (const secret of secrets) {
    if (secret.length < minimumPieceLength) continue;
    const middle = secret
      .slice(Math.floor((secret.length - minimumPieceLength) / 2))
      .slice(0, minimumPieceLength);
    for (const { source, text } of texts) {
      if (text.includes(secret) || text.includes(middle)) {
        leaks.push({ source, secretPrefix: `${secret.slice(0, 6)}…` });
      }
    }
  }
  return leaks;
}
