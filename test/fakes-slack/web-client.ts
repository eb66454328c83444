import { ErrorCode, type Logger, LogLevel, type WebAPIPlatformError, WebClient } from '@slack/web-api';
import type { FakeSlack } from '../fakes/slack/index.ts';

/** A logger that drops everything: the refusals these tests provoke would otherwise fill the output. */
export const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  setLevel: () => undefined,
  getLevel: () => LogLevel.ERROR,
  setName: () => undefined,
};

/** The real WebClient pointed at the fake, with retries off so each call is one request. */
export function createWebClient(fake: FakeSlack, token: string = fake.botToken): WebClient {
  return new WebClient(token, {
    slackApiUrl: fake.apiUrl,
    retryConfig: { retries: 0 },
    logger: silentLogger,
  });
}

/** The Slack error code a call failed with; fails the test when it succeeded or failed otherwise. */
export async function slackErrorOf(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (error) {
    if ((error as { code?: unknown }).code === ErrorCode.PlatformError) {
      return String((error as WebAPIPlatformError).data.error);
    }
    throw error;
  }
  throw new Error('expected the call to fail, but it succeeded');
}
