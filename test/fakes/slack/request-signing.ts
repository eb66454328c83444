import { createHmac } from 'node:crypto';

/**
 * Slack's request signature ("Verifying requests from Slack", docs.slack.dev/authentication/
 * verifying-requests-from-slack): `v0=` + hex HMAC-SHA256 of `v0:<timestamp>:<raw body>` keyed with
 * the app's signing secret. Bolt recomputes it over the exact bytes it received.
 */
export function signSlackRequest(options: {
  signingSecret: string;
  timestampSec: number;
  body: string;
}): string {
  const base = `v0:${options.timestampSec}:${options.body}`;
  return `v0=${createHmac('sha256', options.signingSecret).update(base).digest('hex')}`;
}
