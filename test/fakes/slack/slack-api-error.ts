/**
 * A refused Web API call. The fake answers it with HTTP 200 and `{ ok: false, error, ...details }`,
 * because Slack's Web API reports errors in the body, not the status (429 is the one exception).
 */
export class SlackApiError extends Error {
  /** Slack's error code, e.g. `channel_not_found`. */
  readonly error: string;
  /** More fields for the body, e.g. `errors` and `response_metadata` of `invalid_blocks`. */
  readonly details: Record<string, unknown>;

  constructor(error: string, details: Record<string, unknown> = {}) {
    super(`slack api error: ${error}`);
    this.name = 'SlackApiError';
    this.error = error;
    this.details = details;
  }

  /** The response body. */
  toBody(): Record<string, unknown> {
    return { ok: false, error: this.error, ...this.details };
  }
}
