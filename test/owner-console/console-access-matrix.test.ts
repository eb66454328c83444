import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleRouteName, consoleRoutes } from '../../src/console/console-routes.ts';
import type { RunningConsole } from '../../src/console/console-server.ts';
import { type ConsoleClient, createConsoleClient } from '../support/console-client.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';
import { startWebConsoleUnderTest } from '../support/web-console-under-test.ts';

/**
 * Every console route, tried by everyone who might reach it: nobody signed in, a member of the
 * server, its admin, and its admin asking about another server (IDOR). The rows are keyed by the
 * route table itself, so a new route does not compile here until it has its row. Every POST is
 * tried without the session's CSRF token too, and refused.
 */
type Persona = 'anonymous' | 'member' | 'admin' | 'adminElsewhere';

interface Row {
  /** The request, for the server a persona is asking about. */
  readonly path: (guildId: string) => string;
  /** Form fields besides the CSRF token, for a POST. */
  readonly form?: Record<string, string>;
  /** The status each persona gets (redirects not followed). */
  readonly expected: Readonly<Record<Persona, number>>;
  /** An event stream that would run for minutes: only its status and headers are read. */
  readonly isStream?: boolean;
}

const everyone = (status: number) => ({
  anonymous: status,
  member: status,
  admin: status,
  adminElsewhere: status,
});
const adminsOnly = { anonymous: 303, member: 403, admin: 200, adminElsewhere: 403 };

const matrix: Record<ConsoleRouteName, Row> = {
  home: { path: () => '/', expected: everyone(200) },
  stylesheet: { path: () => '/console.css', expected: everyone(200) },
  chartLibrary: { path: () => '/assets/uplot.js', expected: everyone(200) },
  chartLibraryStyles: { path: () => '/assets/uplot.css', expected: everyone(200) },
  spendChart: { path: () => '/assets/spend-chart.js', expected: everyone(200) },
  liveFigures: { path: () => '/assets/live-figures.js', expected: everyone(200) },
  linkSignInPage: { path: () => '/sign-in/link/some-token-that-is-long-enough', expected: everyone(200) },
  // A token that was never issued: refused whoever asks.
  linkSignIn: { path: () => '/sign-in/link', form: { token: 'x'.repeat(43) }, expected: everyone(403) },
  discordSignIn: { path: () => '/sign-in/discord', expected: everyone(302) },
  discordCallback: { path: () => '/sign-in/discord/callback?code=c&state=s', expected: everyone(400) },
  // This bot runs on Discord: Sign in with Slack is not set up (test/owner-console/slack-sign-in.test.ts).
  slackSignIn: { path: () => '/sign-in/slack', expected: everyone(404) },
  slackCallback: { path: () => '/sign-in/slack/callback?code=c&state=s', expected: everyone(404) },
  // Tried last for each persona (it ends the session).
  signOut: {
    path: () => '/sign-out',
    form: {},
    expected: { anonymous: 403, member: 303, admin: 303, adminElsewhere: 303 },
  },
  myPage: {
    path: (guild) => `/places/discord/${guild}/me`,
    expected: { anonymous: 303, member: 200, admin: 200, adminElsewhere: 403 },
  },
  // Nothing to forget: told so (400), which only someone let through can be.
  forgetMyNotes: {
    path: (guild) => `/places/discord/${guild}/me`,
    form: { note: 'all' },
    expected: { anonymous: 403, member: 400, admin: 400, adminElsewhere: 403 },
  },
  exportMyData: {
    path: (guild) => `/places/discord/${guild}/me/export`,
    form: {},
    expected: { anonymous: 403, member: 200, admin: 200, adminElsewhere: 403 },
  },
  // Unconfirmed: asked to tick the box (400), which only someone let through is.
  forgetMe: {
    path: (guild) => `/places/discord/${guild}/me/forget`,
    form: {},
    expected: { anonymous: 403, member: 400, admin: 400, adminElsewhere: 403 },
  },
  memory: { path: (guild) => `/places/discord/${guild}/memory`, expected: adminsOnly },
  tools: { path: (guild) => `/places/discord/${guild}/tools`, expected: adminsOnly },
  forgetPlaceNotes: {
    path: (guild) => `/places/discord/${guild}/memory`,
    form: { note: 'all' },
    expected: { anonymous: 403, member: 403, admin: 400, adminElsewhere: 403 },
  },
  overview: { path: (guild) => `/places/discord/${guild}/overview`, expected: adminsOnly },
  // A stream: its status is read, then it is let go.
  overviewFigures: {
    path: (guild) => `/places/discord/${guild}/overview/figures`,
    expected: adminsOnly,
    isStream: true,
  },
  settings: { path: (guild) => `/places/discord/${guild}/settings`, expected: adminsOnly },
  changeSetting: {
    path: (guild) => `/places/discord/${guild}/settings`,
    form: { setting: 'BUDGET_USER_MONTHLY', value: '7', channel: '' },
    // A POST without a session has no CSRF token to show: refused before anything else.
    expected: { ...adminsOnly, anonymous: 403 },
  },
  audit: { path: (guild) => `/places/discord/${guild}/audit`, expected: adminsOnly },
  schedules: { path: (guild) => `/places/discord/${guild}/schedules`, expected: adminsOnly },
  // An id that does not exist: the admin is told so (400); nobody else gets that far.
  changeSchedule: {
    path: (guild) => `/places/discord/${guild}/schedules`,
    form: { id: 'no-such-schedule', change: 'pause' },
    expected: { anonymous: 403, member: 403, admin: 400, adminElsewhere: 403 },
  },
  spend: { path: (guild) => `/places/discord/${guild}/spend`, expected: adminsOnly },
  spendCsv: { path: (guild) => `/places/discord/${guild}/spend.csv`, expected: adminsOnly },
};

let under: DiscordUnderTest;
let webConsole: RunningConsole;
let otherGuildId: string;
beforeAll(async () => {
  under = await startDiscordUnderTest();
  webConsole = await startWebConsoleUnderTest(under);
  otherGuildId = under.discord.createGuild({ name: 'Somebody else’s' }).guildId;
}, 30_000);
afterAll(async () => {
  await webConsole?.close();
  await under?.close();
});

/** Signs a new person in through the fake Discord's OAuth2 pages; `isAdmin`: with Manage Server. */
async function signIn(name: string, { isAdmin }: { isAdmin: boolean }) {
  const person = under.discord.createUser({ username: name });
  under.discord.joinGuild(person.id);
  const role = under.discord.createRole({
    name: `${name}-role`,
    permissions: isAdmin ? ['manage-guild'] : [],
  });
  under.discord.giveRole(person.id, role);
  under.discord.oauth.approveAs(person.id);
  const browser = createConsoleClient(webConsole.origin);
  const home = await browser.get('/sign-in/discord');
  expect(home.body).toContain('Signed in as');
  return { person, role, browser, csrf: browser.csrfOf(home) };
}

async function tryRoute({
  browser,
  csrf,
  name,
  guildId,
}: {
  browser: ConsoleClient;
  csrf: string;
  name: ConsoleRouteName;
  guildId: string;
}) {
  const route = consoleRoutes[name];
  const row = matrix[name];
  if (row.isStream === true) return browser.statusOf(row.path(guildId));
  return browser.once(
    route.method,
    row.path(guildId),
    route.method === 'POST' ? { ...row.form, csrf } : undefined,
  );
}

const names = Object.keys(consoleRoutes) as ConsoleRouteName[];
// Sign-out last: it ends the persona's session.
const ordered = [...names.filter((name) => name !== 'signOut'), 'signOut' as const];

describe('the console’s access matrix', () => {
  it('has a row for every route and a route for every row', () => {
    expect(Object.keys(matrix).sort()).toEqual(Object.keys(consoleRoutes).sort());
  });

  it('answers each persona as its row says, on every route', async () => {
    const guildId = under.discord.guildId;
    const personas: Record<Persona, { browser: ConsoleClient; csrf: string; guildId: string }> = {
      anonymous: { browser: createConsoleClient(webConsole.origin), csrf: '', guildId },
      member: { ...(await signIn('matrix-member', { isAdmin: false })), guildId },
      admin: { ...(await signIn('matrix-admin', { isAdmin: true })), guildId },
      adminElsewhere: {
        ...(await signIn('matrix-admin-elsewhere', { isAdmin: true })),
        guildId: otherGuildId,
      },
    };
    const seen: string[] = [];
    const expected: string[] = [];
    for (const [persona, { browser, csrf, guildId: asked }] of Object.entries(personas) as [
      Persona,
      (typeof personas)[Persona],
    ][]) {
      for (const name of ordered) {
        const answer = await tryRoute({ browser, csrf, name, guildId: asked });
        seen.push(`${persona} ${name} ${answer.status}`);
        expected.push(`${persona} ${name} ${matrix[name].expected[persona]}`);
      }
    }
    expect(seen).toEqual(expected);
  }, 60_000);

  it('refuses every POST that lacks the session’s CSRF token or comes from another site, and changes nothing', async () => {
    const { browser, csrf } = await signIn('matrix-csrf-admin', { isAdmin: true });
    const posts = names.filter(
      (name) => consoleRoutes[name].method === 'POST' && consoleRoutes[name].access !== 'anyone',
    );
    expect(posts.length).toBeGreaterThan(0);
    for (const name of posts) {
      const path = matrix[name].path(under.discord.guildId);
      const withoutToken = await browser.once('POST', path, { ...matrix[name].form });
      expect([name, withoutToken.status]).toEqual([name, 403]);
      const wrongToken = await browser.once('POST', path, {
        ...matrix[name].form,
        csrf: `${csrf.slice(0, -2)}xx`,
      });
      expect([name, wrongToken.status]).toEqual([name, 403]);
      const crossSite = await browser.post(
        path,
        { ...matrix[name].form, csrf },
        { origin: 'https://evil.example' },
      );
      expect([name, crossSite.status]).toEqual([name, 403]);
    }
    const settings = await under.app.places.settingsAt({
      platform: 'discord',
      workspace: under.discord.guildId,
      channel: under.generalChannelId,
    });
    // Only the matrix's own admin row changed it (to 7); the refused ones asked for 7 as well, so
    // the proof is that the session still works and the trail has no change by this person.
    const trail = await under.app.audit.read({
      platform: 'discord',
      workspace: under.discord.guildId,
      kind: 'config-change',
      limit: 50,
    });
    expect(trail.entries.filter((entry) => entry.actor.name === 'matrix-csrf-admin')).toEqual([]);
    expect(settings.budgetLimits).toBeDefined();
    expect((await browser.get('/')).body).toContain('Signed in as');
  }, 60_000);

  it('refuses an admin demoted after signing in at their very next request', async () => {
    const { person, role, browser, csrf } = await signIn('matrix-demoted', { isAdmin: true });
    const settingsPath = `/places/discord/${under.discord.guildId}/settings`;
    expect((await browser.once('GET', settingsPath)).status).toBe(200);
    under.discord.takeRole(person.id, role);
    expect((await browser.once('GET', settingsPath)).status).toBe(403);
    const change = await browser.once('POST', settingsPath, {
      csrf,
      setting: 'BUDGET_USER_DAILY',
      value: '99',
      channel: '',
    });
    expect(change.status).toBe(403);
    const trail = await under.app.audit.read({
      platform: 'discord',
      workspace: under.discord.guildId,
      personId: person.id,
      limit: 10,
    });
    expect(trail.entries.map((entry) => [entry.kind, entry.result])).toEqual([['access-refused', 'refused']]);
    // Still a member: their own page stays theirs.
    expect((await browser.once('GET', `/places/discord/${under.discord.guildId}/me`)).status).toBe(200);
  }, 30_000);
});

describe('the console’s sign-in limit', () => {
  it('turns an address away once it tried too often in a minute', async () => {
    const limited = await startWebConsoleUnderTest(under, { signInAttemptsPerMinute: 3 });
    try {
      const browser = createConsoleClient(limited.origin);
      const statuses: number[] = [];
      for (let attempt = 0; attempt < 5; attempt += 1) {
        statuses.push((await browser.once('POST', '/sign-in/link', { token: 'y'.repeat(43) })).status);
      }
      expect(statuses).toEqual([403, 403, 403, 429, 429]);
    } finally {
      await limited.close();
      // The harness's desk points at the matrix's console again.
      under.services.consoleLinks?.open(webConsole.origin);
    }
  });
});
