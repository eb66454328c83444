import { request as httpRequest } from 'node:http';
import { signSlackRequest } from './request-signing.ts';
import { unixSeconds } from './slack-ids.ts';

/** How to reach an app over HTTP and how to sign the request. */
export interface HttpTarget {
  mode?: 'http';
  /** The app's request URL, e.g. `http://127.0.0.1:3000/slack/events`; default the fake's `appUrl`. */
  url?: string;
  /** Default the fake's `signingSecret`. */
  signingSecret?: string;
  /** `X-Slack-Request-Timestamp`; default now. An old one tests the 5-minute replay window. */
  timestampSec?: number;
  /** Sign with a wrong secret, as an attacker without the secret would. */
  forgeSignature?: boolean;
  /** Sets `X-Slack-Retry-Num`, as Slack does when it redelivers an event. */
  retryNum?: number;
  /** `X-Slack-Retry-Reason`, e.g. `http_timeout`; default `http_error` when `retryNum` is set. */
  retryReason?: string;
  /** Gives up waiting for the app's answer after this long. Default 10,000 ms. */
  timeoutMs?: number;
}

/** What the app answered. */
export interface HttpDelivery {
  mode: 'http';
  status: number;
  /** The response body as text (an ack with a payload for commands carries JSON). */
  body: string;
  contentType: string | undefined;
  /** From sending the request to the end of the answer. */
  durationMs: number;
}

/** Sends one signed request to the app, the way Slack delivers events, commands and actions. */
export async function postSignedRequest(options: {
  target: HttpTarget;
  url: string;
  signingSecret: string;
  contentType: string;
  body: string;
}): Promise<HttpDelivery> {
  const { target } = options;
  const timestampSec = target.timestampSec ?? unixSeconds();
  const signature = signSlackRequest({
    signingSecret: target.forgeSignature === true ? `forged-${options.signingSecret}` : options.signingSecret,
    timestampSec,
    body: options.body,
  });
  const headers: Record<string, string> = {
    'content-type': options.contentType,
    'content-length': String(Buffer.byteLength(options.body)),
    'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
    'x-slack-request-timestamp': String(timestampSec),
    'x-slack-signature': signature,
  };
  if (target.retryNum !== undefined) {
    headers['x-slack-retry-num'] = String(target.retryNum);
    headers['x-slack-retry-reason'] = target.retryReason ?? 'http_error';
  }
  return post({ url: options.url, headers, body: options.body, timeoutMs: target.timeoutMs ?? 10_000 });
}

// node:http without an agent, so no kept-alive socket outlives a delivery and keeps an app's server
// (or the test process) open.
function post(options: {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}): Promise<HttpDelivery> {
  const startedAtMs = performance.now();
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      options.url,
      {
        method: 'POST',
        headers: options.headers,
        agent: false,
        signal: AbortSignal.timeout(options.timeoutMs),
      },
      (incoming) => {
        const parts: Buffer[] = [];
        incoming.on('data', (part: Buffer) => parts.push(part));
        incoming.on('error', reject);
        incoming.on('end', () =>
          resolve({
            mode: 'http',
            status: incoming.statusCode ?? 0,
            body: Buffer.concat(parts).toString('utf8'),
            contentType: incoming.headers['content-type'],
            durationMs: performance.now() - startedAtMs,
          }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}
