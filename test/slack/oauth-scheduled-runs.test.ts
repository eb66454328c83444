import { afterEach, describe, expect, it, vi } from 'vitest';
import { conversationKeyOf } from '../../src/conversation/turn.ts';
import { slashCommand } from '../fakes/slack/index.ts';
import { eventually, installByOAuth, oauthEnvironment } from './install-by-oauth.ts';
import { type SlackUnderTest, startSlackUnderTest } from './slack-under-test.ts';

/**
 * Scheduled runs with OAuth installs: nothing brings a token when a schedule's time comes, so the run
 * reads its workspace's installation (or its org's, for a workspace of an org installed org-wide) and
 * posts with that token.
 */
const testApp = { clientId: '3333333333.4444444444', clientSecret: 'fake-client-secret-scheduled-0123' };
// Monday 2 June 2025, 08:00 in Berlin (SCHEDULE_TIMEZONE below).
const startMs = Date.parse('2025-06-02T06:00:00Z');
const adminId = 'U0ADMIN001';

let bot: SlackUnderTest;
afterEach(() => bot?.close());

describe('scheduled runs on Slack with OAuth installs', () => {
  it('runs a workspace’s schedule and an org-wide workspace’s with each installation’s token', async () => {
    bot = await startSlackUnderTest({
      mode: 'http',
      slackOptions: { ...testApp, nativeStreaming: 'unknown_method' },
      environment: { ...oauthEnvironment(testApp), SCHEDULE_TIMEZONE: 'Europe/Berlin' },
      prepare: (slack) => {
        slack.addUser({ id: adminId, name: 'ada', isAdmin: true });
        slack.addInstallableWorkspace({ teamId: 'T0SCHED01', channels: ['C0SCHED01'] });
        slack.addInstallableWorkspace({
          teamId: 'T0SCHEDG1',
          enterpriseId: 'E0SCHED01',
          channels: ['C0SCHEDG1'],
        });
        slack.addEnterprise({ enterpriseId: 'E0SCHED01' });
      },
      scheduleClockStartMs: startMs,
    });
    const scheduling = bot.scheduling;
    if (scheduling === undefined) throw new Error('no manual scheduling');
    const appOrigin = `http://127.0.0.1:${bot.adapter.port}`;
    expect((await installByOAuth({ appOrigin, slack: bot.slack, teamId: 'T0SCHED01' })).status).toBe(200);
    expect((await installByOAuth({ appOrigin, slack: bot.slack, enterpriseId: 'E0SCHED01' })).status).toBe(
      200,
    );

    const places = [
      { teamId: 'T0SCHED01', channel: 'C0SCHED01', orgWide: false },
      { teamId: 'T0SCHEDG1', channel: 'C0SCHEDG1', orgWide: true },
    ];
    for (const { teamId, channel, orgWide } of places) {
      const command = slashCommand({
        command: '/schedule',
        text: `every weekday 09:00 news for ${channel}?`,
        user: adminId,
        channel,
        teamId,
      });
      // A command from a workspace of an org installed org-wide names the org (Bolt's source).
      const fromOrg = orgWide
        ? { ...command, enterprise_id: 'E0SCHED01', is_enterprise_install: 'true' }
        : command;
      await bot.deliverCommand(fromOrg);
      await vi.waitFor(async () =>
        expect(
          await scheduling.scheduler.listInPlace(
            conversationKeyOf({ platform: 'slack', workspace: teamId, channel }),
          ),
        ).toHaveLength(1),
      );
    }

    bot.gateway.enqueue({ text: 'The first run.' });
    bot.gateway.enqueue({ text: 'The second run.' });
    await scheduling.clock.advanceTo(Date.parse('2025-06-02T07:00:01Z'));
    for (const { teamId, channel, orgWide } of places) {
      await bot.slack.waitFor(
        () => bot.slack.messages(channel).find((message) => /The (first|second) run\./.test(message.text)),
        15_000,
      );
      const tokens = new Set(
        bot.slack.calls
          .filter((call) => call.arguments.channel === channel && call.method === 'chat.postMessage')
          .map((call) => call.token),
      );
      const expected = [...bot.slack.oauth.tokens.entries()]
        .filter(([, issued]) => (orgWide ? issued.isEnterpriseInstall : issued.teamId === teamId))
        .map(([token]) => token);
      expect(tokens).toEqual(new Set(expected));
    }
    expect(
      bot.slack.calls.filter((call) => call.result.error !== undefined).map((call) => call.result.error),
    ).toEqual([]);
  }, 40_000);

  it('finds the org’s installation for a workspace no event has named since the org was installed again', async () => {
    let botUserIdOfOrg = '';
    bot = await startSlackUnderTest({
      mode: 'http',
      slackOptions: { ...testApp, nativeStreaming: 'unknown_method' },
      environment: { ...oauthEnvironment(testApp), SCHEDULE_TIMEZONE: 'Europe/Berlin' },
      prepare: (slack) => {
        slack.addUser({ id: adminId, name: 'ada', isAdmin: true });
        slack.addInstallableWorkspace({
          teamId: 'T0SCHEDG2',
          enterpriseId: 'E0SCHED02',
          channels: ['C0SCHEDG2'],
        });
        botUserIdOfOrg = slack.addEnterprise({ enterpriseId: 'E0SCHED02' }).botUserId;
      },
      scheduleClockStartMs: startMs,
    });
    const scheduling = bot.scheduling;
    if (scheduling === undefined) throw new Error('no manual scheduling');
    const appOrigin = `http://127.0.0.1:${bot.adapter.port}`;
    const installOrg = () => installByOAuth({ appOrigin, slack: bot.slack, enterpriseId: 'E0SCHED02' });
    expect((await installOrg()).status).toBe(200);
    const command = slashCommand({
      command: '/schedule',
      text: 'every weekday 09:00 news for C0SCHEDG2?',
      user: adminId,
      channel: 'C0SCHEDG2',
      teamId: 'T0SCHEDG2',
    });
    await bot.deliverCommand({ ...command, enterprise_id: 'E0SCHED02', is_enterprise_install: 'true' });
    const place = conversationKeyOf({ platform: 'slack', workspace: 'T0SCHEDG2', channel: 'C0SCHEDG2' });
    await vi.waitFor(async () => expect(await scheduling.scheduler.listInPlace(place)).toHaveLength(1));

    // The org removes parley (its installation and what was noted of its workspaces go) and installs
    // it again; the schedule stays (SLACK_UNINSTALL_DELETES is off), and no event has come since.
    bot.slack.revokeInstallation({ enterpriseId: 'E0SCHED02' });
    await bot.deliverEvent(
      { type: 'tokens_revoked', tokens: { bot: [botUserIdOfOrg] } },
      {
        origin: {
          teamId: 'T0SCHEDG2',
          enterpriseId: 'E0SCHED02',
          isEnterpriseInstall: true,
          botUserId: botUserIdOfOrg,
        },
      },
    );
    await eventually(async () => (await bot.adapter.installations?.list())?.length === 0);
    expect(await bot.installationKeyv.get('org-of:T0SCHEDG2')).toBeUndefined();
    expect((await installOrg()).status).toBe(200);

    bot.gateway.enqueue({ text: 'The run after the reinstall.' });
    await scheduling.clock.advanceTo(Date.parse('2025-06-02T07:00:01Z'));
    await bot.slack.waitFor(
      () =>
        bot.slack
          .messages('C0SCHEDG2')
          .find((message) => message.text.includes('The run after the reinstall.')),
      15_000,
    );
    const orgTokens = [...bot.slack.oauth.tokens.entries()]
      .filter(([, issued]) => issued.isEnterpriseInstall && !issued.isRevoked)
      .map(([token]) => token);
    const posted = bot.slack.calls.filter(
      (call) => call.arguments.channel === 'C0SCHEDG2' && call.method === 'chat.postMessage',
    );
    expect(new Set(posted.slice(-1).map((call) => call.token))).toEqual(new Set(orgTokens));
    // Slack was asked which workspaces the org's installation reaches, and the answer was noted.
    expect(bot.slack.calls.some((call) => call.method === 'auth.teams.list')).toBe(true);
    expect(await bot.installationKeyv.get('org-of:T0SCHEDG2')).toBe('E0SCHED02');
  }, 40_000);
});
