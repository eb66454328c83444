import { UserFacingError } from '../../src/user-facing-error.ts';

/** The `error` of a Web API call that answered `ok: false` (e.g. `not_in_channel`), else undefined. */
export function slackErrorCodeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, data } = error as { code?: unknown; data?: { error?: unknown } };
  if (code !== 'slack_webapi_platform_error') return undefined;
  return typeof data?.error === 'string' ? data.error : undefined;
}

/**
 * The seconds Slack asked to wait when a call was answered 429 (the WebClient's rate-limited error,
 * raised at once since the adapter's clients run with `rejectRateLimitedCalls`); else undefined.
 */
export function retryAfterSecOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, retryAfter } = error as { code?: unknown; retryAfter?: unknown };
  if (code !== 'slack_webapi_rate_limited_error') return undefined;
  return typeof retryAfter === 'number' ? retryAfter : 60;
}

/** Errors that mean the bot cannot see or post in the channel. */
const notInChannelErrors = new Set(['not_in_channel', 'channel_not_found', 'is_archived']);

/**
 * Whether a private message to a person in a channel failed because one of them is no longer there:
 * `user_not_in_channel` (chat.postEphemeral, "Errors") or the bot's own not-in-channel errors.
 */
export function isOutOfChannelError(errorCode: string | undefined): boolean {
  return (
    errorCode === 'user_not_in_channel' || (errorCode !== undefined && notInChannelErrors.has(errorCode))
  );
}

/**
 * The Slack refusals a person can fix, as a sentence for them; other errors pass through unchanged
 * (they end up as the generic "something went wrong" line, with the details in the log).
 */
export function explainSlackError(error: unknown): unknown {
  const code = slackErrorCodeOf(error);
  if (code !== undefined && notInChannelErrors.has(code)) {
    return new UserFacingError({
      message: `slack refused: ${code}`,
      userMessage: 'I am not in this channel. Invite me (`/invite` and my name), then try again.',
      cause: error,
    });
  }
  const retryAfterSec = retryAfterSecOf(error);
  if (retryAfterSec !== undefined) {
    return new UserFacingError({
      message: `slack rate limited: retry after ${retryAfterSec} s`,
      userMessage: `Slack is limiting how often I may do this right now. Try again in ${retryAfterSec} seconds.`,
      cause: error,
    });
  }
  if (code === 'missing_scope') {
    const needed = (error as { data?: { needed?: unknown } }).data?.needed;
    return new UserFacingError({
      message: `slack refused: missing_scope ${String(needed)}`,
      userMessage: `The Slack app is missing the \`${String(needed ?? 'required')}\` scope. Ask an admin to add it from slack/manifest.json and reinstall the app.`,
      cause: error,
    });
  }
  return error;
}
