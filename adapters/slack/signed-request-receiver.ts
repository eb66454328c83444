import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Logger as BoltLogger, HTTPReceiver, type HTTPReceiverOptions } from '@slack/bolt';
import type { Logger } from '../../src/log.ts';

/** Where Slack sends events, slash commands and button clicks in HTTP mode. */
export const slackEventsPath = '/slack/events';

/**
 * How far a request's `X-Slack-Request-Timestamp` may be from now, either way. Slack's guide to
 * verifying requests (docs.slack.dev/authentication/verifying-requests-from-slack) says to refuse a
 * request more than five minutes away from the local time, so a captured request cannot be replayed.
 */
export const maxRequestSkewSec = 5 * 60;

/**
 * Bolt's HTTP receiver with the replay window checked first, in both directions. Bolt refuses only
 * timestamps older than five minutes (`verifySlackRequest` in @slack/bolt), so a correctly signed
 * request dated in the future would be accepted, and could be replayed until that time has passed.
 */
export function createSignedRequestReceiver({
  signingSecret,
  boltLogger,
  logger,
  installer,
  now = Date.now,
}: {
  signingSecret: string;
  boltLogger: BoltLogger;
  logger: Logger;
  /** With OAuth: Bolt's installer options; the install pages then share the port. */
  installer?: Pick<
    HTTPReceiverOptions,
    | 'clientId'
    | 'clientSecret'
    | 'stateSecret'
    | 'scopes'
    | 'installationStore'
    | 'redirectUri'
    | 'installerOptions'
  >;
  now?: () => number;
}): HTTPReceiver {
  const receiver = new HTTPReceiver({
    signingSecret,
    endpoints: [slackEventsPath],
    logger: boltLogger,
    ...installer,
  });
  const boltListener = receiver.requestListener;
  // Bolt's server calls this property for every request, so the check runs before Bolt reads the body.
  receiver.requestListener = (request: IncomingMessage, response: ServerResponse) => {
    if (request.method === 'POST' && pathOf(request) === slackEventsPath) {
      const skewSec = timestampSkewSec(request, now());
      if (skewSec === undefined || Math.abs(skewSec) > maxRequestSkewSec) {
        logger.warn(
          { skewSec: skewSec ?? null },
          'slack: refused a request whose timestamp is missing or over 5 minutes from now (replay?)',
        );
        request.resume();
        response.writeHead(401).end();
        return;
      }
    }
    boltListener(request, response);
  };
  return receiver;
}

/** Seconds between the request's timestamp and now (positive: from the future); undefined if unreadable. */
function timestampSkewSec(request: IncomingMessage, nowMs: number): number | undefined {
  const header = request.headers['x-slack-request-timestamp'];
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || !/^\d+$/.test(value)) return undefined;
  return Number(value) - Math.floor(nowMs / 1000);
}

function pathOf(request: IncomingMessage): string {
  return new URL(request.url ?? '/', 'http://localhost').pathname;
}
