import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningConsole } from '../../src/console/console-server.ts';
import { conversationKeyOf } from '../../src/conversation/turn.ts';
import { createConsoleClient } from '../support/console-client.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';
import { startWebConsoleUnderTest } from '../support/web-console-under-test.ts';

/**
 * The Spend page from known spending: the server's totals and tool calls today and this month (its
 * own counters), the top people and channels as /usage --top, and the same as CSV, whose cells a
 * spreadsheet cannot run as formulas (a tool named like one, say).
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

describe('the console’s Spend page', () => {
  it('shows the server’s known spending and tool calls, and the same as neutralised CSV', async () => {
    const admin = under.discord.createUser({ username: 'spend-admin' });
    under.discord.joinGuild(admin.id);
    const role = under.discord.createRole({ name: 'spend-managers', permissions: ['manage-guild'] });
    under.discord.giveRole(admin.id, role);
    const conversationKey = conversationKeyOf({
      platform: 'discord',
      workspace: under.discord.guildId,
      channel: under.generalChannelId,
    });
    for (const costNanos of [1_250_000_000, 750_000_000]) {
      await under.services.usage.settle({
        reservationId: `console-spend-${costNanos}`,
        subject: { userId: admin.id, conversationKey, budgetedRoleIds: [] },
        heldCounters: [],
        spent: { promptTokens: 1_000, completionTokens: 500, images: 0, costNanos },
        toolCalls: { web_search: { calls: 2, errors: 1 }, '=HYPERLINK("x")': { calls: 1, errors: 0 } },
        at: new Date(),
      });
    }
    under.discord.oauth.approveAs(admin.id);
    const browser = createConsoleClient(webConsole.origin);
    await browser.get('/sign-in/discord');
    const spendPath = `/places/discord/${under.discord.guildId}/spend`;
    const page = await browser.get(spendPath);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<th scope="row">Cost</th><td>2</td><td>2</td>');
    expect(page.body).toMatch(/<th scope="row">Requests<\/th><td>2<\/td><td>2<\/td>/);
    expect(page.body).toContain('<td><code>web_search</code></td><td>4 (2 failed)</td><td>4 (2 failed)</td>');
    expect(page.body).toContain(admin.id);

    const csv = await browser.get(`${spendPath}.csv`);
    expect(csv.headers.get('content-type')).toContain('text/csv');
    expect(csv.body).toContain(`day,users,1,${admin.id},`);
    expect(csv.body).toContain('day,tool calls,1,web_search,4 (2 failed)');
    // A cell a spreadsheet would run as a formula starts with a quote, as /extract's CSV does.
    expect(csv.body).toContain(`day,tool calls,2,"'=HYPERLINK(""x"")",2 (0 failed)`);
  }, 30_000);

  it('breaks the cost down by model and tool over time, by day, week and month', async () => {
    const admin = under.discord.createUser({ username: 'history-admin' });
    under.discord.joinGuild(admin.id);
    const role = under.discord.createRole({ name: 'history-managers', permissions: ['manage-guild'] });
    under.discord.giveRole(admin.id, role);
    const conversationKey = conversationKeyOf({
      platform: 'discord',
      workspace: under.discord.guildId,
      channel: under.generalChannelId,
    });
    await under.services.usage.settle({
      reservationId: 'console-history',
      subject: { userId: admin.id, conversationKey, budgetedRoleIds: [] },
      heldCounters: [],
      spent: { requests: 2, promptTokens: 10, completionTokens: 10, images: 0, costNanos: 500_000_000 },
      costByModel: { 'drawing-model': 300_000_000, 'summary-model': 200_000_000 },
      toolCalls: { fetch_page: { calls: 3, errors: 1 } },
      at: new Date(),
    });
    // A real reply: the spend hold counts the model the gateway was asked for.
    const before = under.botMessages(under.generalChannelId).length;
    under.discord.sendUserMessage({
      channelId: under.generalChannelId,
      author: admin.id,
      content: 'what does the spend page show?',
      mentionsBot: true,
    });
    await under.discord.waitFor(() => under.botMessages(under.generalChannelId).slice(before)[0]);
    const modelsToday = async () => {
      const { days } = await under.services.usage.placeHistory({
        platform: 'discord',
        workspace: under.discord.guildId,
        at: new Date(),
        days: 1,
        months: 1,
      });
      return Object.keys(days[0]?.costByModel ?? {}).sort();
    };
    await expect
      .poll(modelsToday, { timeout: 10_000 })
      .toEqual(['chat-model', 'drawing-model', 'summary-model']);

    under.discord.oauth.approveAs(admin.id);
    const browser = createConsoleClient(webConsole.origin);
    await browser.get('/sign-in/discord');
    const spendPath = `/places/discord/${under.discord.guildId}/spend`;
    for (const grouping of ['', '?by=day', '?by=week', '?by=month']) {
      const page = await browser.get(`${spendPath}${grouping}`);
      expect(page.status).toBe(200);
      expect(page.body).toMatch(/<td>[^<]*drawing-model 0\.3, summary-model 0\.2[^<]*<\/td>/);
      expect(page.body).toContain('chat-model');
      expect(page.body).toMatch(/<td>[^<]*fetch_page 3 \(1 failed\)[^<]*<\/td>/);
    }
    expect((await browser.get(`${spendPath}?by=week`)).body).toContain('Cost each week');
    expect((await browser.get(`${spendPath}?by=month`)).body).toContain(
      'Cost each month, the last 12 months',
    );
    // Anything else is the default grouping, by day.
    expect((await browser.get(`${spendPath}?by=%3Cscript%3E`)).body).toContain('Cost each day');
  }, 30_000);

  it('shows the tools, whether each asks first, and their calls here', async () => {
    const admin = under.discord.createUser({ username: 'tools-admin' });
    under.discord.joinGuild(admin.id);
    const role = under.discord.createRole({ name: 'tools-managers', permissions: ['manage-guild'] });
    under.discord.giveRole(admin.id, role);
    under.discord.oauth.approveAs(admin.id);
    const browser = createConsoleClient(webConsole.origin);
    await browser.get('/sign-in/discord');
    const page = await browser.get(`/places/discord/${under.discord.guildId}/tools`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('Approval questions waiting now (this process): 0.');
    const names = under.services.toolbox.all().map((tool) => tool.name);
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) expect(page.body).toContain(`<code>${name}</code>`);
    expect(page.body).toContain(`href="/places/discord/${under.discord.guildId}/audit?kind=tool-call"`);
  }, 30_000);

  it('shows what each role with a budget spent', async () => {
    const admin = under.discord.createUser({ username: 'roles-admin' });
    under.discord.joinGuild(admin.id);
    const managers = under.discord.createRole({ name: 'roles-managers', permissions: ['manage-guild'] });
    under.discord.giveRole(admin.id, managers);
    const writers = under.discord.createRole({ name: 'writers', permissions: [] });
    under.discord.oauth.approveAs(admin.id);
    const browser = createConsoleClient(webConsole.origin);
    const home = await browser.get('/sign-in/discord');
    const path = `/places/discord/${under.discord.guildId}`;
    const set = await browser.post(`${path}/settings`, {
      csrf: browser.csrfOf(home),
      setting: 'BUDGET_ROLE_DAILY',
      value: `${writers}=5`,
      channel: '',
    });
    expect(set.status).toBe(200);
    await under.services.usage.settle({
      reservationId: 'console-role-spend',
      subject: {
        userId: admin.id,
        conversationKey: conversationKeyOf({
          platform: 'discord',
          workspace: under.discord.guildId,
          channel: under.generalChannelId,
        }),
        budgetedRoleIds: [writers],
      },
      heldCounters: [],
      spent: { promptTokens: 10, completionTokens: 10, images: 0, costNanos: 400_000_000 },
      at: new Date(),
    });
    const page = await browser.get(`${path}/spend`);
    expect(page.body).toContain(`<td><code>${writers}</code></td><td>0.4</td><td>0.4</td>`);
  }, 30_000);
});
