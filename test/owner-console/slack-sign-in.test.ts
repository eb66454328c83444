import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningConsole } from '../../src/console/console-server.ts';
import { slashCommand } from '../fakes/slack/index.ts';
import { type SlackUnderTest, startSlackUnderTest } from '../slack/slack-under-test.ts';
import { createConsoleClient } from '../support/console-client.ts';
import { startWebConsoleUnderTest } from '../support/web-console-under-test.ts';

/**
 * "Sign in with Slack" end to end: OpenID Connect against the fake Slack (authorize page,
 * openid.connect.token with the nonce in the ID token, openid.connect.userInfo), and the workspace's
 * pages as Slack shows the person now (users.info asked afresh at every request).
 */
let under: SlackUnderTest;
let webConsole: RunningConsole;
const adminId = 'U0CONSOLEADM';
const memberId = 'U0CONSOLEMEM';
beforeAll(async () => {
  under = await startSlackUnderTest({
    mode: 'http',
    prepare: (slack) => {
      slack.addUser({ id: adminId, name: 'ada', realName: 'Ada Admin', isAdmin: true });
      slack.addUser({ id: memberId, name: 'mo', realName: 'Mo Member' });
    },
  });
  webConsole = await startWebConsoleUnderTest(under);
}, 30_000);
afterAll(async () => {
  await webConsole?.close();
  await under?.close();
});

describe('the owner’s console: Sign in with Slack', () => {
  it('signs a workspace admin in with OpenID Connect, to settings changed through /config’s code', async () => {
    const teamId = under.slack.workspace.teamId;
    under.slack.openId.approveAs(adminId);
    const browser = createConsoleClient(webConsole.origin);
    expect((await browser.get('/')).body).toContain('Sign in with Slack');
    const home = await browser.get('/sign-in/slack');
    expect(home.body).toContain('Signed in as Ada Admin');
    const settingsPath = `/places/slack/${teamId}/settings`;
    expect(home.body).toContain(`href="${settingsPath}"`);
    expect(under.slack.openId.requests.map((request) => [request.path, request.ok])).toEqual([
      ['/openid/connect/authorize', true],
      ['/api/openid.connect.token', true],
      ['/api/openid.connect.userInfo', true],
    ]);
    const changed = await browser.post(settingsPath, {
      csrf: browser.csrfOf(home),
      setting: 'MEMORY',
      value: 'user',
      channel: '',
    });
    expect(changed.body).toContain('MEMORY for this workspace is now user');
    const inForce = await under.app.places.settingsAt({
      platform: 'slack',
      workspace: teamId,
      channel: 'C0ANY',
    });
    expect(inForce.memory).toBe('user');

    // No longer an admin in Slack: refused at the next request, their own page still theirs.
    under.slack.addUser({ id: adminId, name: 'ada', realName: 'Ada Admin', isAdmin: false });
    expect((await browser.once('GET', settingsPath)).status).toBe(403);
    expect((await browser.once('GET', `/places/slack/${teamId}/me`)).status).toBe(200);
  }, 30_000);

  it('gives a member only their own page', async () => {
    const teamId = under.slack.workspace.teamId;
    under.slack.openId.approveAs(memberId);
    const browser = createConsoleClient(webConsole.origin);
    const home = await browser.get('/sign-in/slack');
    expect(home.body).toContain('Signed in as Mo Member');
    expect(home.body).toContain(`/places/slack/${teamId}/me`);
    expect(home.body).not.toContain(`/places/slack/${teamId}/settings`);
    expect((await browser.once('GET', `/places/slack/${teamId}/settings`)).status).toBe(403);
    expect((await browser.once('GET', `/places/slack/${teamId}/audit`)).status).toBe(403);
  }, 30_000);

  it('refuses a return whose state this browser did not start', async () => {
    const browser = createConsoleClient(webConsole.origin);
    expect((await browser.get('/sign-in/slack/callback?code=x&state=y')).status).toBe(400);
    expect(browser.cookies.size).toBe(0);
  });

  it('gives a one-time link with /console, privately, for the workspace it was asked in', async () => {
    const teamId = under.slack.workspace.teamId;
    const seen = under.slack.responseUrlPosts.length;
    await under.deliverCommand(slashCommand({ command: '/console', user: memberId, channel: 'C0CONSOLE01' }));
    const answer = await under.slack.waitFor(() =>
      under.slack.responseUrlPosts
        .slice(seen)
        .find((post) => JSON.stringify(post).includes('/sign-in/link/')),
    );
    const text = JSON.stringify(answer);
    expect(text).toContain('ephemeral');
    const link = /(\/sign-in\/link\/[\w-]+)/.exec(text)?.[1] ?? '';
    const browser = createConsoleClient(webConsole.origin);
    const token = /name="token" value="([^"]+)"/.exec((await browser.get(link)).body)?.[1] ?? '';
    const home = await browser.post('/sign-in/link', { token });
    expect(home.body).toContain(`/places/slack/${teamId}/me`);
  }, 30_000);
});
