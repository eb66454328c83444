import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningConsole } from '../../src/console/console-server.ts';
import { createConsoleClient } from '../support/console-client.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';
import { startWebConsoleUnderTest } from '../support/web-console-under-test.ts';

/**
 * "Sign in with Discord" end to end: the console sends the browser to the fake Discord's authorize
 * page with state and a PKCE challenge, the fake sends it back with a code, the console exchanges
 * it (arctic, the verifier checked by the fake), asks /users/@me and /users/@me/guilds with the
 * Bearer token, and the person's servers are the ones where the bot builds them as admins now.
 */
let under: DiscordUnderTest;
let webConsole: RunningConsole;
beforeAll(async () => {
  under = await startDiscordUnderTest();
  webConsole = await startWebConsoleUnderTest(under);
}, 30_000);
afterAll(async () => {
  await webConsole?.close();
  await under?.close();
});

describe('the owner’s console: Sign in with Discord', () => {
  it('signs an admin in through OAuth2 with PKCE, lists their server, and a budget changed there is in force and in the audit trail', async () => {
    const admin = under.discord.createUser({ username: 'console-admin', globalName: 'Console Admin' });
    under.discord.joinGuild(admin.id);
    const managers = under.discord.createRole({ name: 'console-managers', permissions: ['manage-guild'] });
    under.discord.giveRole(admin.id, managers);
    under.discord.oauth.approveAs(admin.id);
    const browser = createConsoleClient(webConsole.origin);

    const start = await browser.get('/');
    expect(start.body).toContain('Sign in with Discord');
    const picker = await browser.get('/sign-in/discord');
    expect(picker.status).toBe(200);
    expect(picker.body).toContain('Signed in as Console Admin');
    const settingsPath = `/places/discord/${under.discord.guildId}/settings`;
    expect(picker.body).toContain(`href="${settingsPath}"`);
    expect(under.discord.oauth.requests.map((request) => [request.path, request.status])).toEqual([
      ['/oauth2/authorize', 302],
      ['/api/oauth2/token', 200],
      ['/users/@me', 200],
      ['/users/@me/guilds', 200],
    ]);

    const settings = await browser.get(settingsPath);
    expect(settings.status).toBe(200);
    const changed = await browser.post(settingsPath, {
      csrf: browser.csrfOf(settings),
      setting: 'BUDGET_USER_DAILY',
      value: '0.25',
      channel: '',
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toContain('BUDGET_USER_DAILY for this server is now 0.25');
    const inForce = await under.app.places.settingsAt({
      platform: 'discord',
      workspace: under.discord.guildId,
      channel: under.generalChannelId,
    });
    expect(inForce.budgetLimits.BUDGET_USER_DAILY).toBe(0.25);

    const refused = await browser.post(settingsPath, {
      csrf: browser.csrfOf(settings),
      setting: 'BUDGET_USER_DAILY',
      value: 'lots',
      channel: '',
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toContain('role="alert"');

    const audit = await browser.get(`/places/discord/${under.discord.guildId}/audit?kind=config-change`);
    expect(audit.status).toBe(200);
    expect(audit.body).toContain('BUDGET_USER_DAILY for this server is now 0.25');
    expect(audit.body).toContain('Console Admin');

    // Signing out ends the session in the store: the old cookie opens nothing any more.
    const sessionCookie = [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const signedOut = await browser.post('/sign-out', { csrf: browser.csrfOf(audit) });
    expect(signedOut.body).toContain('Sign in with Discord');
    const replayed = await fetch(`${webConsole.origin}${settingsPath}`, {
      headers: { cookie: sessionCookie },
      redirect: 'manual',
    });
    expect(replayed.status).toBe(303);
  }, 30_000);

  it('refuses a callback whose state this browser did not start, and a code used twice', async () => {
    const browser = createConsoleClient(webConsole.origin);
    const forged = await browser.get('/sign-in/discord/callback?code=abc&state=not-mine');
    expect(forged.status).toBe(400);
    expect(browser.cookies.size).toBe(0);

    // A real round trip, stopped at the callback and replayed.
    const toDiscord = await browser.getOnce('/sign-in/discord');
    const back = await fetch(toDiscord.location ?? '', { redirect: 'manual' });
    const callback = new URL(back.headers.get('location') ?? '');
    const signedIn = await browser.get(`${callback.pathname}${callback.search}`);
    expect(signedIn.body).toContain('Signed in as');
    const replayed = await createConsoleClient(webConsole.origin).get(
      `${callback.pathname}${callback.search}`,
    );
    expect(replayed.status).toBe(400);
  }, 30_000);

  it('lists only the servers parley is in, asking Discord nothing about the others', async () => {
    const owner = under.discord.user;
    const elsewhere = under.discord.createGuildWithoutBot({ name: 'no parley here' });
    under.discord.oauth.approveAs(owner.id);
    const browser = createConsoleClient(webConsole.origin);
    const requestsBefore = under.discord.requests.length;
    const home = await browser.get('/sign-in/discord');
    expect(home.body).toContain(`/places/discord/${under.discord.guildId}/settings`);
    expect(home.body).not.toContain(elsewhere.guildId);
    const asked = under.discord.requests.slice(requestsBefore).map((request) => request.path);
    expect(asked.filter((path) => path.includes(elsewhere.guildId))).toEqual([]);
    expect(asked.filter((path) => path === `/users/${owner.id}`)).toEqual([]);
    // Its pages are refused all the same.
    expect((await browser.once('GET', `/places/discord/${elsewhere.guildId}/settings`)).status).toBe(403);
  }, 30_000);
});
