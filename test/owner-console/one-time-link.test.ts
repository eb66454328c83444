import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningConsole } from '../../src/console/console-server.ts';
import { createConsoleClient } from '../support/console-client.ts';
import { makeDiscordAdmin } from '../support/discord-admin.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';
import { startWebConsoleUnderTest } from '../support/web-console-under-test.ts';

/**
 * `/console` on Discord answers privately with a one-time link for the person and the server they
 * asked in. The link opens a page whose button signs in (a link preview cannot use it up); it
 * works once. What the person may do is asked of Discord at each page: a member gets their own page.
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

async function linkFromConsoleCommand(userId: string, channelId: string): Promise<string> {
  const before = under.botMessages(channelId).length;
  under.discord.sendSlashCommand({ name: 'console', channelId, user: userId });
  const answer = await under.discord.waitFor(() =>
    under
      .botMessages(channelId)
      .slice(before)
      .find((message) => message.content.includes('sign-in link') || message.content.includes('/console')),
  );
  // Private: only the person who asked sees it.
  expect(answer.flags & 64).toBe(64);
  const link = /https?:\/\/\S+/.exec(answer.content)?.[0];
  if (link === undefined) throw new Error(`no link in: ${answer.content}`);
  return link;
}

describe('/console and its one-time link', () => {
  it('signs a member in once, to their own page only', async () => {
    const member = under.discord.createUser({ username: 'link-member' });
    under.discord.joinGuild(member.id);
    const link = await linkFromConsoleCommand(member.id, under.generalChannelId);
    expect(link.startsWith(`${webConsole.origin}/sign-in/link/`)).toBe(true);

    const browser = createConsoleClient(webConsole.origin);
    const page = await browser.get(link);
    expect(page.status).toBe(200);
    // Opening the page signs nobody in: only its button does.
    expect(browser.cookies.size).toBe(0);
    const token = /name="token" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
    const home = await browser.post('/sign-in/link', { token });
    expect(home.body).toContain('Signed in as link-member');
    expect(home.body).toContain(`/places/discord/${under.discord.guildId}/me`);
    expect(home.body).not.toContain(`/places/discord/${under.discord.guildId}/settings`);
    const myPage = await browser.get(`/places/discord/${under.discord.guildId}/me`);
    expect(myPage.status).toBe(200);
    expect(myPage.body).toContain('Your usage');

    const again = await createConsoleClient(webConsole.origin).post('/sign-in/link', { token });
    expect(again.status).toBe(403);
    expect(again.body).toContain('used already');
  }, 30_000);

  it('signs an admin in to their server’s settings', async () => {
    const admin = makeDiscordAdmin(under);
    const link = await linkFromConsoleCommand(admin.id, under.generalChannelId);
    const browser = createConsoleClient(webConsole.origin);
    const token = /name="token" value="([^"]+)"/.exec((await browser.get(link)).body)?.[1] ?? '';
    const signedIn = await browser.once('POST', '/sign-in/link', { token });
    expect(signedIn.status).toBe(303);
    // HttpOnly and SameSite, lasting as long as the session; not Secure on plain http to 127.0.0.1.
    const [cookie = ''] = signedIn.headers.getSetCookie();
    expect(cookie).toMatch(/^parley-console=[\w-]{43}; Max-Age=3600; Path=\/; HttpOnly; SameSite=Lax$/);
    const home = await browser.get('/');
    expect(home.body).toContain(`/places/discord/${under.discord.guildId}/settings`);
    expect((await browser.get(`/places/discord/${under.discord.guildId}/settings`)).status).toBe(200);
  }, 30_000);

  it('gives no link in a DM, where there is no server to sign in to', async () => {
    const dm = under.discord.directMessageChannel(under.discord.user.id);
    const before = under.botMessages(dm).length;
    under.discord.sendSlashCommand({ name: 'console', channelId: dm, user: under.discord.user.id });
    const answer = await under.discord.waitFor(() =>
      under
        .botMessages(dm)
        .slice(before)
        .find((message) => message.content.includes('/console')),
    );
    expect(answer.content).not.toMatch(/https?:\/\//);
  }, 30_000);
});
