import type { PlatformFailure } from './surface.ts';

/** After a failed final call, the first pause before it is tried again; each later pause doubles. */
export const minimumFinalRetryDelayMs = 1_000;

/**
 * The longest pause between two tries of a final call the platform gave no time for (a 5xx, a
 * dropped connection): a reply lands within about this long of the platform answering again, however
 * long it was out (issue 22: a backoff grown to 16 s left replies missing long after Discord was
 * back). Each reply tries at most once in this long, and every try still waits its turn in the
 * outbound queue, within the token's budget. A rate limit's own `Retry-After` is waited out whole.
 */
export const maximumFinalRetryDelayMs = 2_000;

/**
 * How long a final call that keeps failing is tried again: long enough to ride out a platform's bad
 * minute, short enough that the person is not left with half a reply for long.
 */
export const defaultFinalRetryWindowMs = 180_000;

/** The pause before the next try of a final call that has failed `failureCount` times in a row. */
export function finalRetryDelayMs({
  failureCount,
  retryAfterMs,
}: {
  failureCount: number;
  /** What the platform asked for (a rate limit's `Retry-After`), when it said. */
  retryAfterMs?: number | undefined;
}): number {
  const backoffMs = Math.min(maximumFinalRetryDelayMs, minimumFinalRetryDelayMs * 2 ** (failureCount - 1));
  return Math.max(backoffMs, retryAfterMs ?? 0);
}

/**
 * Makes a call that finishes a reply (the buttons under it, which on Slack also carry its last text)
 * until it lands: a failure the platform calls passing is tried again after growing pauses, for up
 * to `windowMs`; any other failure, or one past the window, is thrown.
 */
export async function retryFinalCall<Result>({
  call,
  classifyFailure = () => ({ isRetryable: true }),
  onRetry,
  windowMs = defaultFinalRetryWindowMs,
}: {
  call: () => Promise<Result>;
  classifyFailure?: ((error: unknown) => PlatformFailure) | undefined;
  /** Told of each failure that will be tried again, e.g. to log it. */
  onRetry?: (error: unknown, delayMs: number) => void;
  windowMs?: number;
}): Promise<Result> {
  const startedAtMs = Date.now();
  for (let failureCount = 1; ; failureCount += 1) {
    try {
      return await call();
    } catch (error) {
      const failure = classifyFailure(error);
      const delayMs = finalRetryDelayMs({ failureCount, retryAfterMs: failure.retryAfterMs });
      if (!failure.isRetryable || Date.now() + delayMs - startedAtMs > windowMs) throw error;
      onRetry?.(error, delayMs);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
}
