import { webApi } from '@slack/bolt';
import type { PlatformFailure } from '../../src/delivery/surface.ts';
import { slackErrorCodeOf } from './slack-errors.ts';

/**
 * The `ok: false` errors Slack documents as passing ("Errors" on every method page of
 * docs.slack.dev: `internal_error`, `fatal_error`, `service_unavailable`, `request_timeout`,
 * `ratelimited`); every other platform error (`msg_too_long`, `message_not_found`,
 * `channel_not_found`, …) will answer the same way however often it is asked.
 */
const passingPlatformErrors = new Set([
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
  'ratelimited',
]);

/** Whether a failed Web API call can succeed if tried again, and when. */
export function classifySlackFailure(error: unknown): PlatformFailure {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === webApi.ErrorCode.RateLimitedError) {
    const retryAfterSeconds = (error as { retryAfter?: unknown }).retryAfter;
    return typeof retryAfterSeconds === 'number'
      ? { isRetryable: true, retryAfterMs: retryAfterSeconds * 1000 }
      : { isRetryable: true };
  }
  if (code === webApi.ErrorCode.HTTPError) {
    const statusCode = (error as { statusCode?: unknown }).statusCode;
    return { isRetryable: typeof statusCode !== 'number' || statusCode >= 500 || statusCode === 429 };
  }
  const platformError = slackErrorCodeOf(error);
  if (platformError !== undefined) return { isRetryable: passingPlatformErrors.has(platformError) };
  // A request that never got an answer (a dropped connection, a timeout) may well get one next time.
  return { isRetryable: true };
}
