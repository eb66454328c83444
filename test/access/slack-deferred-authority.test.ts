import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Actor } from '../../src/access/actor.ts';
import { conversationKeyOf } from '../../src/conversation/turn.ts';
import { type SlackUnderTest, startSlackUnderTest } from '../slack/slack-under-test.ts';
import { type ChangeAfterCreation, changesAfterCreation, deferredKinds } from './entry-points.ts';

/**
 * The access matrix's time axis on Slack (issue 34): a schedule or reminder set up while its owner
 * was allowed, then a change in the workspace, then its run comes due: refused, zero gateway
 * requests, paused, the owner told once. Slack has no timeouts and no per-person channel
 * permissions, so those two changes do not apply here; leaving a workspace is deactivation.
 */
const pause = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

const teamId = 'T0FAKETEAM';
const channel = 'C0DEFERRED';
const groups = { blocked: 'S0BLOCKED1', unpaid: 'S0UNPAID01', askers: 'S0ASKERS01' } as const;

const expectedByChange: Partial<Record<ChangeAfterCreation, RegExp>> = {
  'role-blocked': /Sorry, you cannot use parley here/,
  'role-budget-0': /Not sent: the daily budget of a role of yours has 0 of 0 left/,
  'admin-removed': /is only for some roles/,
  'member-left': /Your account there is deactivated/,
};

const cells = deferredKinds.flatMap((kind) =>
  changesAfterCreation
    .filter((change) => expectedByChange[change] !== undefined)
    // A reminder spends nothing, so a budget cannot refuse it.
    .filter((change) => !(kind === 'reminder' && change === 'role-budget-0'))
    .map((change, index) => ({ kind, change, ownerId: `U0OWN${kind === 'reminder' ? 'R' : 'S'}${index}00` })),
);

/** Who is in each user group now; a change rewrites the group, as an admin editing it in Slack. */
const members: Record<keyof typeof groups, string[]> = { blocked: [], unpaid: [], askers: [] };

let bot: SlackUnderTest;
beforeAll(async () => {
  bot = await startSlackUnderTest({
    mode: 'http',
    environment: {
      SCHEDULERS: 'everyone',
      ACCESS_BLOCK_ROLE_IDS: groups.blocked,
      BUDGET_ROLE_DAILY: `${groups.unpaid}=0`,
      ACCESS_COMMAND_ROLE_IDS: `chat=${groups.askers},remind=${groups.askers}`,
    },
    scheduleClockStartMs: Date.now(),
  });
}, 30_000);
afterAll(() => bot.close());

function setGroup(group: keyof typeof groups): void {
  bot.slack.addUserGroup({ id: groups[group], handle: group, userIds: [...members[group]] });
}

describe('Slack: deferred work re-asks the gate with today’s facts', () => {
  it.each(cells)(
    'a $kind after “$change” is refused when it runs',
    async ({ kind, change, ownerId }) => {
      const scheduling = bot.scheduling;
      if (scheduling === undefined) throw new Error('the bot runs no manual scheduling');
      const expected = expectedByChange[change];
      if (expected === undefined) throw new Error(`no expectation for ${change}`);
      const isAdminAtFirst = change === 'admin-removed';
      bot.slack.addUser({ id: ownerId, name: `owner-${ownerId.toLowerCase()}`, isAdmin: isAdminAtFirst });
      if (!isAdminAtFirst) {
        members.askers.push(ownerId);
        setGroup('askers');
      }
      const ownerThen: Actor = {
        id: ownerId,
        name: `owner-${ownerId.toLowerCase()}`,
        roleIds: isAdminAtFirst ? [] : [groups.askers],
        isAdmin: isAdminAtFirst,
        context: 'server',
      };
      const created = await scheduling.scheduler.create({
        kind: kind === 'reminder' ? 'reminder' : 'place',
        conversationKey: conversationKeyOf({ platform: 'slack', workspace: teamId, channel }),
        owner: ownerThen,
        what: `hello from ${ownerId}`,
        whenText: 'every day 09:00',
        timing: { kind: 'cron', pattern: '0 9 * * *' },
        timeZone: 'UTC',
      });
      if ('problem' in created) throw new Error(created.problem);
      const { record } = created;

      changeOnSlack(change, ownerId);
      const dm = `D${ownerId.slice(1)}`;
      const watched = [channel, dm];
      const botPosts = () =>
        watched.flatMap((watchedId) =>
          bot.slack.messages(watchedId).filter((message) => message.botId !== undefined),
        );
      const before = new Set(botPosts().map((message) => message.ts));
      const fresh = () => botPosts().filter((message) => !before.has(message.ts));
      const requestsBefore = bot.gateway.requests.length;
      await scheduling.clock.advanceTo((record.nextRunAtMs ?? 0) + 1_000);

      await vi.waitFor(
        async () => {
          const now = await scheduling.scheduler.get(record.id);
          expect(now?.state).toBe('paused');
          expect(now?.lastRun?.status).toBe(change === 'role-budget-0' ? 'unpaid' : 'refused');
        },
        { timeout: 20_000 },
      );
      // A deactivated account cannot be written to (conversations.open: user_disabled); a channel
      // schedule says it in its channel instead, a reminder has nobody left to tell.
      const isToldNowhere = change === 'member-left' && kind === 'reminder';
      if (!isToldNowhere) {
        const told = await bot.slack.waitFor(
          () => fresh().find((message) => expected.test(message.text)),
          20_000,
        );
        const toldPrivately = change !== 'role-budget-0' && change !== 'member-left';
        if (toldPrivately) expect(bot.slack.messages(dm).map((message) => message.ts)).toContain(told.ts);
      }
      expect(bot.gateway.requests.length).toBe(requestsBefore);
      expect(fresh().filter((message) => /^⏰ Reminder|^🕘 hello/.test(message.text))).toEqual([]);

      // Paused: the next day brings no run and no second notice.
      await scheduling.clock.advanceBy(24 * 60 * 60_000);
      await pause(200);
      expect(fresh().filter((message) => expected.test(message.text))).toHaveLength(isToldNowhere ? 0 : 1);
      expect(bot.gateway.requests.length).toBe(requestsBefore);
    },
    40_000,
  );
});

function changeOnSlack(change: ChangeAfterCreation, ownerId: string): void {
  switch (change) {
    case 'role-blocked':
      members.blocked.push(ownerId);
      setGroup('blocked');
      break;
    case 'role-budget-0':
      members.unpaid.push(ownerId);
      setGroup('unpaid');
      break;
    case 'admin-removed':
      bot.slack.addUser({ id: ownerId, name: `owner-${ownerId.toLowerCase()}`, isAdmin: false });
      break;
    case 'member-left':
      bot.slack.addUser({ id: ownerId, name: `owner-${ownerId.toLowerCase()}`, isDeleted: true });
      break;
    default:
      throw new Error(`${change} does not apply on Slack`);
  }
}
