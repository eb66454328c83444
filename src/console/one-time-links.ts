import { randomBytes } from 'node:crypto';
import type Keyv from 'keyv';
import { type ConsolePerson, consolePersonSchema } from './console-person.ts';

/** How long a one-time sign-in link works. */
export const oneTimeLinkLifetimeMs = 10 * 60_000;

/**
 * Sign-in links for a self-hosted bot with no OAuth app: `/console` gives one privately, and
 * `npm start` in the terminal prints one for its owner. A link works once and for ten minutes.
 */
export interface OneTimeLinks {
  /** A new link's token for this person. */
  issue(person: ConsolePerson): Promise<string>;
  /** The person the token was made for, once: the second use, or a late one, finds nobody. */
  redeem(token: string): Promise<ConsolePerson | undefined>;
}

export function createOneTimeLinks({ store }: { store: Keyv }): OneTimeLinks {
  return {
    async issue(person) {
      const token = randomBytes(32).toString('base64url');
      await store.set(token, person, oneTimeLinkLifetimeMs);
      return token;
    },
    async redeem(token) {
      if (!/^[\w-]{20,64}$/.test(token)) return undefined;
      const stored = await store.get(token);
      // Only the one request whose delete found the token may use it: two at once cannot both.
      if (stored === undefined || !(await store.delete(token))) return undefined;
      const parsed = consolePersonSchema.safeParse(stored);
      return parsed.success ? parsed.data : undefined;
    },
  };
}
