import { DiscordAPIError, HTTPError, RateLimitError } from 'discord.js';
import type { PlatformFailure } from '../../src/delivery/surface.ts';
import { DiscordRequestWithheldError } from './invalid-request-guard.ts';

/**
 * Whether a failed Discord call can succeed if tried again. A 4xx answer is final (an unknown or
 * deleted message, a missing permission, an invalid body: discord-api-docs topics/opcodes-and-
 * status-codes, "HTTP response codes"); a 5xx, a dropped connection or a rate limit passes.
 */
export function classifyDiscordFailure(error: unknown): PlatformFailure {
  if (error instanceof RateLimitError) return { isRetryable: true, retryAfterMs: error.retryAfter };
  // Withheld because its route kept failing or the invalid request limit is near: trying again
  // would be one more invalid request.
  if (error instanceof DiscordRequestWithheldError) return { isRetryable: false };
  if (error instanceof DiscordAPIError || error instanceof HTTPError) {
    if (error.status === 429) return { isRetryable: true };
    return { isRetryable: error.status >= 500 || error.status === 408 };
  }
  return { isRetryable: true };
}
