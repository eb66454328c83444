import { expect } from 'vitest';
import type { FakeSlack } from '../fakes/slack/index.ts';

/** What a person's browser saw of one install: Slack's redirect back, and the page the app showed. */
export interface InstallOutcome {
  readonly status: number;
  readonly page: string;
  /** The redirect's query and cookie, to replay them. */
  readonly redirectUrl: string;
  readonly cookie: string;
}

/** A 32-byte key as 64 hex digits, for SLACK_INSTALLATIONS_KEY. */
export const installationsKey = 'a1'.repeat(32);

/** The environment of parley installing by OAuth against the fake (no SLACK_BOT_TOKEN). */
export function oauthEnvironment(app: { clientId: string; clientSecret: string }): Record<string, string> {
  return {
    SLACK_BOT_TOKEN: '',
    SLACK_CLIENT_ID: app.clientId,
    SLACK_CLIENT_SECRET: app.clientSecret,
    SLACK_STATE_SECRET: 'state-secret-for-tests-0123456789abcdef',
    SLACK_INSTALLATIONS_KEY: installationsKey,
  };
}

/**
 * A person installs parley as a browser would: opens the install page (a redirect to Slack's authorize
 * page, with the state in a cookie), approves on Slack (the fake issues a code), and follows Slack's
 * redirect back to the app with the cookie.
 */
export async function installByOAuth({
  appOrigin,
  slack,
  teamId,
  enterpriseId,
  scopes,
}: {
  appOrigin: string;
  slack: FakeSlack;
  teamId?: string;
  enterpriseId?: string;
  scopes?: string[];
}): Promise<InstallOutcome> {
  const installPage = await fetch(`${appOrigin}/slack/install`, { redirect: 'manual' });
  expect(installPage.status).toBe(302);
  const authorizeUrl = installPage.headers.get('location') ?? '';
  expect(authorizeUrl).toContain('/oauth/v2/authorize?');
  const cookie = (installPage.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const approved = slack.approveInstall({
    authorizeUrl,
    ...(teamId === undefined ? {} : { teamId }),
    ...(enterpriseId === undefined ? {} : { enterpriseId }),
    ...(scopes === undefined ? {} : { scopes }),
  });
  const redirectUrl = `${appOrigin}/slack/oauth_redirect?${new URLSearchParams(approved).toString()}`;
  return { ...(await followRedirect(redirectUrl, cookie)), redirectUrl, cookie };
}

/** Slack's redirect back to the app, with the browser's cookie. */
export async function followRedirect(
  redirectUrl: string,
  cookie: string,
): Promise<{ status: number; page: string }> {
  const response = await fetch(redirectUrl, { headers: { cookie }, redirect: 'manual' });
  return { status: response.status, page: await response.text() };
}

/** Resolves once an asynchronous check holds; rejects after `timeoutMs`. */
export async function eventually(check: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('eventually: the check never held');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
