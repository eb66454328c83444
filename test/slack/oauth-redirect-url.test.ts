import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followRedirect, oauthEnvironment } from './install-by-oauth.ts';
import { type SlackUnderTest, startSlackUnderTest } from './slack-under-test.ts';

const testApp = { clientId: '5555555555.6666666666', clientSecret: 'fake-client-secret-redirect-0123' };
const redirectUrl = 'https://bot.example.com/parley/slack/callback';

/**
 * SLACK_REDIRECT_URL: the install names it as `redirect_uri` on Slack's authorize page and again to
 * `oauth.v2.access` (which refuses a different one: "bad_redirect_uri"), and the callback listens at
 * its path.
 */
describe('slack OAuth install with SLACK_REDIRECT_URL', () => {
  let bot: SlackUnderTest;
  beforeAll(async () => {
    bot = await startSlackUnderTest({
      mode: 'http',
      slackOptions: testApp,
      environment: { ...oauthEnvironment(testApp), SLACK_REDIRECT_URL: redirectUrl },
      prepare: (slack) => {
        slack.addInstallableWorkspace({ teamId: 'T0REDIRECT', channels: ['C0REDIRECT'] });
      },
    });
  });
  afterAll(() => bot.close());

  it('sends the redirect URL to Slack and takes the callback at its path', async () => {
    const appOrigin = `http://127.0.0.1:${bot.adapter.port}`;
    const installPage = await fetch(`${appOrigin}/slack/install`, { redirect: 'manual' });
    const authorizeUrl = installPage.headers.get('location') ?? '';
    expect(new URL(authorizeUrl).searchParams.get('redirect_uri')).toBe(redirectUrl);
    const cookie = (installPage.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const approved = bot.slack.approveInstall({ authorizeUrl, teamId: 'T0REDIRECT' });

    const outcome = await followRedirect(
      `${appOrigin}/parley/slack/callback?${new URLSearchParams(approved).toString()}`,
      cookie,
    );
    expect(outcome.status).toBe(200);
    expect(outcome.page).toContain('parley is installed in the workspace');
    expect(bot.slack.callsTo('oauth.v2.access')[0]?.arguments.redirect_uri).toBe(redirectUrl);
    expect((await bot.adapter.installations?.list())?.map((address) => address.key)).toEqual([
      'team:T0REDIRECT',
    ]);
  });
});
