import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningConsole } from '../../src/console/console-server.ts';
import { contentSecurityPolicy } from '../../src/console/security-headers.ts';
import { createConsoleClient } from '../support/console-client.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';
import { startWebConsoleUnderTest } from '../support/web-console-under-test.ts';

/**
 * What people write reaches the console's pages: their names, the settings they type (a system
 * prompt), the audit trail's lines. Each is escaped, so a payload shows as text; and the CSP
 * allows scripts only from the console's own files, so even a missed one would not run.
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

const scriptName = '<script>alert("name")</script>';
const imagePrompt = '"><img src=x onerror=alert(1)>';

describe('the console escapes what people wrote', () => {
  it('renders names, setting values and audit lines inert, under a CSP with no inline script', async () => {
    const admin = under.discord.createUser({ username: 'xss-admin', globalName: scriptName });
    under.discord.joinGuild(admin.id);
    const role = under.discord.createRole({ name: 'xss-managers', permissions: ['manage-guild'] });
    under.discord.giveRole(admin.id, role);
    under.discord.oauth.approveAs(admin.id);
    const browser = createConsoleClient(webConsole.origin);
    const home = await browser.get('/sign-in/discord');
    expect(home.headers.get('content-security-policy')).toBe(contentSecurityPolicy);
    expect(contentSecurityPolicy).toContain("default-src 'none'");
    // Scripts only from the console's own files (the chart), never inline.
    expect(contentSecurityPolicy).toContain("script-src 'self'");
    expect(contentSecurityPolicy).not.toMatch(/unsafe-inline|unsafe-eval/);

    const settingsPath = `/places/discord/${under.discord.guildId}/settings`;
    const changed = await browser.post(settingsPath, {
      csrf: browser.csrfOf(home),
      setting: 'SYSTEM_PROMPT',
      value: imagePrompt,
      channel: '',
    });
    expect(changed.status).toBe(200);
    const audit = await browser.get(`/places/discord/${under.discord.guildId}/audit`);
    for (const page of [home, changed, audit]) {
      expect(page.body).not.toContain('<script>alert');
      expect(page.body).not.toContain('<img src=x');
      expect(page.body).not.toMatch(/<[^>]*onerror=/);
    }
    expect(home.body).toContain('&lt;script&gt;alert(&quot;name&quot;)&lt;/script&gt;');
    expect(changed.body).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(audit.body).toContain('&lt;script&gt;');
  }, 30_000);
});
