import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningConsole } from '../../src/console/console-server.ts';
import { conversationKeyOf } from '../../src/conversation/turn.ts';
import { createConsoleClient } from '../support/console-client.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';
import { startWebConsoleUnderTest } from '../support/web-console-under-test.ts';

/**
 * The Schedules page: the server's channel schedules with their next run, last run and owner, and
 * Pause, Resume and Delete done by the scheduler's own calls (as /schedules' buttons), each in the
 * audit trail on the owner's behalf. A schedule of another server cannot be reached by its id.
 */
let under: DiscordUnderTest;
let webConsole: RunningConsole;
beforeAll(async () => {
  under = await startDiscordUnderTest({}, { scheduleClockStartMs: Date.now() });
  webConsole = await startWebConsoleUnderTest(under);
}, 30_000);
afterAll(async () => {
  await webConsole?.close();
  await under?.close();
});

async function makeSchedule(workspace: string, channel: string, ownerId: string, what: string) {
  const scheduler = under.scheduling?.scheduler;
  if (scheduler === undefined) throw new Error('no scheduling');
  const created = await scheduler.create({
    kind: 'place',
    conversationKey: conversationKeyOf({ platform: 'discord', workspace, channel }),
    owner: { id: ownerId, name: 'schedule-owner', roleIds: [], isAdmin: true, context: 'server' },
    what,
    whenText: 'every day 09:00',
    timing: { kind: 'cron', pattern: '0 9 * * *' },
    timeZone: 'UTC',
  });
  if ('problem' in created) throw new Error(created.problem);
  return created.record;
}

describe('the console’s Schedules page', () => {
  it('lists the server’s schedules, pauses, resumes and deletes them, each in the audit trail', async () => {
    const scheduler = under.scheduling?.scheduler;
    if (scheduler === undefined) throw new Error('no scheduling');
    const admin = under.discord.createUser({ username: 'schedule-admin' });
    under.discord.joinGuild(admin.id);
    const role = under.discord.createRole({ name: 'schedule-managers', permissions: ['manage-guild'] });
    under.discord.giveRole(admin.id, role);
    const ours = await makeSchedule(
      under.discord.guildId,
      under.generalChannelId,
      admin.id,
      'digest <b>please</b>',
    );
    const other = under.discord.createGuild({ name: 'Elsewhere' });
    const theirs = await makeSchedule(
      other.guildId,
      other.textChannelIds[0] ?? 'c',
      'someone-else',
      'their digest',
    );

    under.discord.oauth.approveAs(admin.id);
    const browser = createConsoleClient(webConsole.origin);
    const home = await browser.get('/sign-in/discord');
    const csrf = browser.csrfOf(home);
    const path = `/places/discord/${under.discord.guildId}/schedules`;
    const page = await browser.get(path);
    expect(page.status).toBe(200);
    expect(page.body).toContain(ours.id);
    expect(page.body).toContain('digest &lt;b&gt;please&lt;/b&gt;');
    expect(page.body).not.toContain(theirs.id);

    const paused = await browser.post(path, { csrf, id: ours.id, change: 'pause' });
    expect(paused.body).toContain(`Schedule ${ours.id} paused.`);
    expect((await scheduler.get(ours.id))?.state).toBe('paused');
    const resumed = await browser.post(path, { csrf, id: ours.id, change: 'resume' });
    expect(resumed.body).toContain(`Schedule ${ours.id} resumed.`);
    expect((await scheduler.get(ours.id))?.state).toBe('active');

    // Another server's schedule, by its id: as unknown here as one that never existed.
    const foreign = await browser.post(path, { csrf, id: theirs.id, change: 'pause' });
    expect(foreign.status).toBe(400);
    expect(foreign.body).toContain('That schedule no longer exists.');
    expect((await scheduler.get(theirs.id))?.state).toBe('active');

    const deleted = await browser.post(path, { csrf, id: ours.id, change: 'delete' });
    expect(deleted.body).toContain(`Schedule ${ours.id} deleted.`);
    expect(await scheduler.get(ours.id)).toBeUndefined();

    const trail = await under.app.audit.read({
      platform: 'discord',
      workspace: under.discord.guildId,
      kind: 'schedule-changed',
      limit: 10,
    });
    expect(
      trail.entries.map((entry) => [entry.actor.id, entry.onBehalfOf?.id, entry.what.split(' ')[0]]),
    ).toEqual([
      [admin.id, admin.id, 'deleted'],
      [admin.id, admin.id, 'resumed'],
      [admin.id, admin.id, 'paused'],
    ]);
  }, 30_000);

  it('shows the overview: readiness, replies in flight, budgets today, tools and the next runs', async () => {
    const admin = under.discord.createUser({ username: 'overview-admin' });
    under.discord.joinGuild(admin.id);
    const role = under.discord.createRole({ name: 'overview-managers', permissions: ['manage-guild'] });
    under.discord.giveRole(admin.id, role);
    await makeSchedule(under.discord.guildId, under.generalChannelId, admin.id, 'weekly <i>report</i>');
    under.discord.oauth.approveAs(admin.id);
    const browser = createConsoleClient(webConsole.origin);
    const home = await browser.get('/sign-in/discord');
    const overviewPath = `/places/discord/${under.discord.guildId}/overview`;
    expect(home.body).toContain(`href="${overviewPath}"`);
    await browser.post(`/places/discord/${under.discord.guildId}/settings`, {
      csrf: browser.csrfOf(home),
      setting: 'BUDGET_SERVER_DAILY',
      value: '5',
      channel: '',
    });
    const overview = await browser.get(overviewPath);
    expect(overview.status).toBe(200);
    expect(overview.body).toContain(
      'replies in flight (this process)</th><td data-live="repliesInFlight">0</td>',
    );
    expect(overview.body).toMatch(
      /replies per minute \(this process, the last <span data-live="activityMinutes">\d+<\/span> min\)<\/th><td data-live="repliesPerMinute">\d+\.\d<\/td>/,
    );
    expect(overview.body).toMatch(
      /replies that failed<\/th><td data-live="errorRate">(none yet|\d+\.\d%)<\/td>/,
    );
    expect(overview.body).toMatch(
      /requests refused \(access rules or a budget\)<\/th><td data-live="refusalRate">(none yet|\d+\.\d%)<\/td>/,
    );
    expect(overview.body).toContain('<td>this server&#39;s daily budget</td><td>5 of 5 left</td>');
    expect(overview.body).toContain('<td>memory</td><td>2</td><td>up</td>');
    expect(overview.body).toContain('weekly &lt;i&gt;report&lt;/i&gt; (schedule-owner)');
    expect(overview.body).toMatch(/<td>store<\/td>|<th scope="row">store<\/th>/);
  }, 30_000);

  it('runs a schedule now as its owner, through the gate: a demoted owner’s run is refused and paused', async () => {
    const scheduler = under.scheduling?.scheduler;
    if (scheduler === undefined) throw new Error('no scheduling');
    const owner = under.discord.createUser({ username: 'run-now-owner' });
    under.discord.joinGuild(owner.id);
    const role = under.discord.createRole({ name: 'run-now-managers', permissions: ['manage-guild'] });
    under.discord.giveRole(owner.id, role);
    const record = await makeSchedule(
      under.discord.guildId,
      under.generalChannelId,
      owner.id,
      'say good morning',
    );
    under.discord.oauth.approveAs(owner.id);
    const browser = createConsoleClient(webConsole.origin);
    const csrf = browser.csrfOf(await browser.get('/sign-in/discord'));
    const path = `/places/discord/${under.discord.guildId}/schedules`;
    const before = under.botMessages(under.generalChannelId).length;

    const ran = await browser.post(path, { csrf, id: record.id, change: 'run' });
    expect(ran.body).toContain(`Schedule ${record.id} ran.`);
    const after = await scheduler.get(record.id);
    expect(after?.lastRun?.status).toBe('ran');
    // Out of turn: the next run stays where it was.
    expect(after?.nextRunAtMs).toBe(record.nextRunAtMs);
    expect(under.botMessages(under.generalChannelId).length).toBeGreaterThan(before);

    // Another admin asks for a run of it after its owner lost Manage Server: the owner is refused.
    const other = under.discord.createUser({ username: 'run-now-other-admin' });
    under.discord.joinGuild(other.id);
    under.discord.giveRole(other.id, role);
    under.discord.takeRole(owner.id, role);
    under.discord.oauth.approveAs(other.id);
    const otherBrowser = createConsoleClient(webConsole.origin);
    const otherCsrf = otherBrowser.csrfOf(await otherBrowser.get('/sign-in/discord'));
    const requestsBefore = under.gateway.requests.length;
    const refused = await otherBrowser.post(path, { csrf: otherCsrf, id: record.id, change: 'run' });
    expect(refused.status).toBe(400);
    expect(refused.body).toContain('Not run (refused)');
    expect(under.gateway.requests.length).toBe(requestsBefore);
    expect((await scheduler.get(record.id))?.state).toBe('paused');
  }, 40_000);

  it('streams the overview’s live figures, asking for the admin again before each, and stops once they are demoted', async () => {
    const admin = under.discord.createUser({ username: 'live-admin' });
    under.discord.joinGuild(admin.id);
    const role = under.discord.createRole({ name: 'live-managers', permissions: ['manage-guild'] });
    under.discord.giveRole(admin.id, role);
    under.discord.oauth.approveAs(admin.id);
    const browser = createConsoleClient(webConsole.origin);
    await browser.get('/sign-in/discord');
    const cookie = [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(
      `${webConsole.origin}/places/discord/${under.discord.guildId}/overview/figures`,
      {
        headers: { cookie },
      },
    );
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reader = response.body?.getReader();
    if (reader === undefined) throw new Error('no stream');
    let text = '';
    const readUntil = async (wanted: string) => {
      while (!text.includes(wanted)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the stream ended before ${wanted}: ${text}`);
        text += new TextDecoder().decode(value);
      }
    };
    await readUntil('event: figures');
    expect(text).toMatch(
      /data: \{"repliesInFlight":"0","repliesPerMinute":"\d+\.\d","errorRate":"[^"]+","refusalRate":"[^"]+","activityMinutes":"\d+","readiness":"(Ready|Not ready[^"]*)"\}/,
    );
    under.discord.takeRole(admin.id, role);
    await readUntil('event: refused');
    // The stream ends there: nothing more is read.
    for (;;) {
      const { done } = await reader.read();
      if (done) break;
    }
  }, 30_000);
});
