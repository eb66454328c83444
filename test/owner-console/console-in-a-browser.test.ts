import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningConsole } from '../../src/console/console-server.ts';
import { conversationKeyOf } from '../../src/conversation/turn.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';
import { startWebConsoleUnderTest } from '../support/web-console-under-test.ts';

/**
 * The console in a real browser: Debian's chromium, driven by playwright-core, signs in through the
 * fake Discord's OAuth2 pages, picks the server, changes a budget with the form, and finds the
 * change in the audit trail, sees the spend chart drawn from known spending; every page passes axe-core's checks with no serious or critical
 * violation, and a screenshot of each (also at 375 px wide) is saved under test-results/console/.
 * Skipped, saying so, where chromium is not installed (`apt-get install chromium`; .ci/run does).
 */
const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const hasChromium = existsSync(chromiumPath);
const screenshots = resolve(import.meta.dirname, '../../test-results/console');
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let under: DiscordUnderTest;
let webConsole: RunningConsole;
let browser: BrowserContext;
let userDataDir: string;

const suiteName = hasChromium
  ? 'the owner’s console in chromium'
  : `the owner’s console in chromium (skipped: ${chromiumPath} is not installed; run with apt-get install -y chromium, or CHROMIUM_PATH=…)`;

describe.skipIf(!hasChromium)(suiteName, () => {
  beforeAll(async () => {
    under = await startDiscordUnderTest();
    webConsole = await startWebConsoleUnderTest(under);
    mkdirSync(screenshots, { recursive: true });
    userDataDir = mkdtempSync(join(tmpdir(), 'parley-console-chromium-'));
    browser = await chromium.launchPersistentContext(userDataDir, {
      executablePath: chromiumPath,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    if (userDataDir !== undefined) rmSync(userDataDir, { recursive: true, force: true });
    await webConsole?.close();
    await under?.close();
  });

  /** axe-core's verdict on the page: the serious and critical violations, by rule. */
  async function seriousViolations(page: Page): Promise<string[]> {
    // Evaluated through the DevTools protocol: the page's CSP forbids every script of its own.
    await page.evaluate(axeSource);
    const results = (await page.evaluate('axe.run(document, { resultTypes: ["violations"] })')) as {
      violations: Array<{ id: string; impact: string | null; nodes: unknown[] }>;
    };
    return results.violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map((violation) => `${violation.id} (${violation.nodes.length})`);
  }

  async function capture(page: Page, name: string): Promise<void> {
    expect([name, await seriousViolations(page)]).toEqual([name, []]);
    await page.screenshot({ path: join(screenshots, `${name}.png`), fullPage: true });
  }

  it('signs in with Discord, picks the server, changes a budget and sees it in the audit trail', async () => {
    const admin = under.discord.createUser({ username: 'browser-admin', globalName: 'Browser Admin' });
    under.discord.joinGuild(admin.id);
    const managers = under.discord.createRole({ name: 'browser-managers', permissions: ['manage-guild'] });
    under.discord.giveRole(admin.id, managers);
    under.discord.oauth.approveAs(admin.id);
    const page = await browser.newPage();
    const scriptErrors: string[] = [];
    page.on('pageerror', (error) => scriptErrors.push(error.message));

    await page.goto(webConsole.origin);
    await capture(page, '1-sign-in');
    await page.getByRole('link', { name: 'Sign in with Discord' }).click();
    await page.getByText('Signed in as Browser Admin').waitFor();
    await capture(page, '2-places');

    await page.locator(`a[href="/places/discord/${under.discord.guildId}/settings"]`).click();
    await page.getByRole('heading', { name: 'Budgets & access' }).waitFor();
    const row = page.locator('tr', { has: page.locator('code', { hasText: /^BUDGET_USER_DAILY$/ }) });
    await row.getByLabel('New value').fill('1.5');
    await row.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText('BUDGET_USER_DAILY for this server is now 1.5').waitFor();
    await capture(page, '3-budgets-and-access');
    const inForce = await under.app.places.settingsAt({
      platform: 'discord',
      workspace: under.discord.guildId,
      channel: under.generalChannelId,
    });
    expect(inForce.budgetLimits.BUDGET_USER_DAILY).toBe(1.5);

    await page.getByRole('link', { name: 'Audit trail' }).click();
    await page.getByRole('cell', { name: /BUDGET_USER_DAILY for this server is now 1\.5/ }).waitFor();
    await capture(page, '4-audit-trail');
    // Known spending, for the chart.
    await under.services.usage.settle({
      reservationId: 'browser-known-spend',
      subject: {
        userId: admin.id,
        conversationKey: conversationKeyOf({
          platform: 'discord',
          workspace: under.discord.guildId,
          channel: under.generalChannelId,
        }),
        budgetedRoleIds: [],
      },
      heldCounters: [],
      spent: { promptTokens: 800, completionTokens: 200, images: 0, costNanos: 2_500_000_000 },
      at: new Date(),
    });
    for (const [index, name] of ['Overview', 'Schedules', 'Memory', 'Tools', 'Spend', 'My page'].entries()) {
      await page.getByRole('link', { name, exact: true }).click();
      await page.getByRole('heading', { name, level: 1 }).waitFor();
      if (name === 'Overview') {
        // The live figures came over Server-Sent Events, under a CSP that allows only the console's own script.
        await page.locator('#live-figures[data-state="live"]').waitFor();
      }
      if (name === 'Spend') {
        // uPlot drew the chart (a canvas) from the page's numbers; the table under it has them too.
        await page.locator('#spend-chart canvas').first().waitFor();
        await page.locator('figcaption').getByRole('cell', { name: '2.5', exact: true }).waitFor();
      }
      await capture(page, `${index + 5}-${name.toLowerCase().replace(' ', '-')}`);
    }

    await page.setViewportSize({ width: 375, height: 800 });
    await page.getByRole('link', { name: 'Budgets & access' }).click();
    await page.screenshot({ path: join(screenshots, '11-budgets-375px.png'), fullPage: true });
    const overflows = await page.evaluate('document.body.scrollWidth > window.innerWidth');
    expect(overflows).toBe(false);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(scriptErrors).toEqual([]);
  }, 90_000);
});
