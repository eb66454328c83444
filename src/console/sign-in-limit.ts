import { RateLimiterMemory } from 'rate-limiter-flexible';

/**
 * Sign-in attempts a client address may make: guessing a link's token or replaying OAuth callbacks
 * is slowed to a few tries a minute. In the process (rate-limiter-flexible's memory limiter): a
 * guess must be made against one process anyway, and 32 random bytes are not guessed in any number.
 */
export interface SignInLimit {
  /** Whether this address may try again now. */
  mayTry(address: string): Promise<boolean>;
}

export function createSignInLimit({
  attempts = 10,
  perSeconds = 60,
}: {
  attempts?: number;
  perSeconds?: number;
} = {}): SignInLimit {
  const limiter = new RateLimiterMemory({ points: attempts, duration: perSeconds });
  return {
    async mayTry(address) {
      try {
        await limiter.consume(address);
        return true;
      } catch {
        return false;
      }
    },
  };
}
