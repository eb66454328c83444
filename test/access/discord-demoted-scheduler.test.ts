import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { conversationKeyOf } from '../../src/conversation/turn.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';

/**
 * Making a channel schedule is an admin's power (SCHEDULERS=admins, the default). An admin who made
 * one and then lost Manage Server keeps every other right a member has, so nothing else refuses the
 * run: the power itself is asked again when it runs. The run is refused with no gateway request,
 * paused, the owner told, and the audit trail records the pause on the owner's authority.
 */
let under: DiscordUnderTest;
beforeAll(async () => {
  under = await startDiscordUnderTest(
    { SEARCH_URL: 'http://127.0.0.1:9' },
    { scheduleClockStartMs: Date.now() },
  );
}, 30_000);
afterAll(() => under.close());

describe('Discord: a demoted admin’s channel schedule', () => {
  it('is refused when it runs, paused, and recorded in the audit trail', async () => {
    const scheduling = under.scheduling;
    if (scheduling === undefined) throw new Error('the bot runs no manual scheduling');
    const owner = under.discord.createUser({ username: 'former-admin' });
    under.discord.joinGuild(owner.id);
    const managers = under.discord.createRole({ name: 'managers', permissions: ['manage-guild'] });
    under.discord.giveRole(owner.id, managers);
    const created = await scheduling.scheduler.create({
      kind: 'place',
      conversationKey: conversationKeyOf({
        platform: 'discord',
        workspace: under.discord.guildId,
        channel: under.generalChannelId,
      }),
      owner: { id: owner.id, name: owner.username, roleIds: [managers], isAdmin: true, context: 'server' },
      what: 'daily digest please',
      whenText: 'every day 09:00',
      timing: { kind: 'cron', pattern: '0 9 * * *' },
      timeZone: 'UTC',
    });
    if ('problem' in created) throw new Error(created.problem);
    under.discord.takeRole(owner.id, managers);
    const dm = under.discord.directMessageChannel(owner.id);
    const requestsBefore = under.gateway.requests.length;
    await scheduling.clock.advanceTo((created.record.nextRunAtMs ?? 0) + 1_000);

    await under.discord.waitFor(
      () => under.botMessages(dm).find((message) => /you no longer may/.test(message.content)),
      { timeoutMs: 20_000 },
    );
    await vi.waitFor(
      async () => {
        const now = await scheduling.scheduler.get(created.record.id);
        expect(now?.state).toBe('paused');
        expect(now?.lastRun?.status).toBe('refused');
      },
      { timeout: 20_000 },
    );
    expect(under.gateway.requests.length).toBe(requestsBefore);
    expect(
      under.botMessages(under.generalChannelId).filter((message) => message.content.startsWith('🕘')),
    ).toEqual([]);
    const trail = await under.services.audit.read({
      platform: 'discord',
      workspace: under.discord.guildId,
      kind: 'schedule-paused',
      limit: 5,
    });
    expect(trail.entries.map((entry) => [entry.actor.id, entry.onBehalfOf?.id, entry.result])).toEqual([
      ['parley', owner.id, 'refused'],
    ]);
    expect(trail.entries[0]?.what).toMatch(/^paused schedule \S+ \(every day 09:00\): Only server admins/);
    expect(JSON.stringify(trail.entries)).not.toContain('daily digest please');
  }, 40_000);
});
