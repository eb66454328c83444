import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Actor } from '../../src/access/actor.ts';
import { conversationKeyOf } from '../../src/conversation/turn.ts';
import type { FakeMessage } from '../fakes/discord/index.ts';
import { runDiscordConfig } from '../support/discord-admin.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';
import {
  type ChangeAfterCreation,
  changesAfterCreation,
  type DeferredKind,
  deferredKinds,
} from './entry-points.ts';

/**
 * The access matrix's time axis on Discord (issue 34): a schedule or reminder set up while its owner
 * was allowed, then a change on Discord (a blocked role, a role budget of 0, Manage Server taken
 * away, leaving the server, a timeout, the channel taken from them), then its run comes due. The run
 * must build its owner from Discord as it is now: refused, zero gateway requests, the schedule
 * paused, its owner told once. The changes are made on the fake Discord only, as a moderator would.
 */
const pause = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

const cannotUse = /Sorry, you cannot use parley here/;
const expectedByChange: Record<ChangeAfterCreation, RegExp> = {
  'role-blocked': cannotUse,
  'role-budget-0': /Not sent: the daily budget of a role of yours has 0 of 0 left/,
  // Admins pass a command's roles; a member without the role does not.
  'admin-removed': /is only for some roles/,
  'member-left': /no longer a member of that server/,
  'timed-out': /timed out in that server/,
  'channel-permission-lost': /You can no longer post in that channel/,
  'parley-permission-lost': /parley can no longer post in that channel/,
};

/**
 * A reminder spends nothing, so a budget cannot refuse it; it is posted in the owner's DM, so
 * parley's rights in the channel do not matter to it.
 */
const appliesTo = (kind: DeferredKind, change: ChangeAfterCreation) =>
  !(kind === 'reminder' && (change === 'role-budget-0' || change === 'parley-permission-lost'));

const cells = deferredKinds.flatMap((kind) =>
  changesAfterCreation.filter((change) => appliesTo(kind, change)).map((change) => ({ kind, change })),
);

interface Roles {
  readonly blocked: string;
  readonly unpaid: string;
  /** The role /chat and /remind need; admins need none. */
  readonly askers: string;
  readonly managers: string;
}

let under: DiscordUnderTest;
let roles: Roles;
beforeAll(async () => {
  under = await startDiscordUnderTest(
    { SCHEDULERS: 'everyone', SEARCH_URL: 'http://127.0.0.1:9' },
    { scheduleClockStartMs: Date.now() },
  );
  const admin = under.discord.createUser({ username: 'grace' });
  under.discord.joinGuild(admin.id);
  roles = {
    blocked: under.discord.createRole({ name: 'blocked' }),
    unpaid: under.discord.createRole({ name: 'unpaid' }),
    askers: under.discord.createRole({ name: 'askers' }),
    managers: under.discord.createRole({
      name: 'managers',
      permissions: ['manage-guild'],
      memberIds: [admin.id],
    }),
  };
  await pause(150);
  for (const options of [
    { setting: 'ACCESS_BLOCK_ROLE_IDS', value: roles.blocked },
    { setting: 'BUDGET_ROLE_DAILY', value: `${roles.unpaid}=0` },
    { setting: 'ACCESS_COMMAND_ROLE_IDS', value: `chat=${roles.askers},remind=${roles.askers}` },
  ]) {
    const confirmation = await runDiscordConfig(under, { admin, options });
    expect(confirmation.content).toMatch(/✅/);
  }
}, 30_000);
afterAll(() => under.close());

describe('Discord: deferred work re-asks the gate with today’s facts', () => {
  it.each(cells)(
    'a $kind after “$change” is refused when it runs',
    async ({ kind, change }) => {
      const scheduling = under.scheduling;
      if (scheduling === undefined) throw new Error('the bot runs no manual scheduling');
      // Taking parley's rights in general would refuse every later cell: that change has a channel of its own.
      const channelId =
        change === 'parley-permission-lost' ? under.discord.createTextChannel() : under.generalChannelId;
      const owner = under.discord.createUser({ username: `owner-${kind}-${change}` });
      under.discord.joinGuild(owner.id);
      const isAdminAtFirst = change === 'admin-removed';
      under.discord.giveRole(owner.id, isAdminAtFirst ? roles.managers : roles.askers);
      // The Actor the command saw when the schedule was made: allowed then.
      const ownerThen: Actor = {
        id: owner.id,
        name: owner.username,
        roleIds: [isAdminAtFirst ? roles.managers : roles.askers],
        isAdmin: isAdminAtFirst,
        context: 'server',
      };
      const created = await scheduling.scheduler.create({
        kind: kind === 'reminder' ? 'reminder' : 'place',
        conversationKey: conversationKeyOf({
          platform: 'discord',
          workspace: under.discord.guildId,
          channel: channelId,
        }),
        owner: ownerThen,
        what: `hello from ${owner.username}`,
        whenText: 'every day 09:00',
        timing: { kind: 'cron', pattern: '0 9 * * *' },
        timeZone: 'UTC',
      });
      if ('problem' in created) throw new Error(created.problem);
      const { record } = created;

      changeOnDiscord({ change, ownerId: owner.id, channelId, nowMs: scheduling.clock.now() });
      const dm = under.discord.directMessageChannel(owner.id);
      const watched = [channelId, dm];
      const before = new Map(watched.map((watchedId) => [watchedId, under.botMessages(watchedId).length]));
      const fresh = () =>
        watched.flatMap((watchedId) => under.botMessages(watchedId).slice(before.get(watchedId) ?? 0));
      const requestsBefore = under.gateway.requests.length;
      await scheduling.clock.advanceTo((record.nextRunAtMs ?? 0) + 1_000);

      const told = await under.discord.waitFor(
        () => fresh().find((message) => expectedByChange[change].test(message.content)),
        { timeoutMs: 20_000 },
      );
      // Access refusals are said to the owner alone, in their DM.
      if (change !== 'role-budget-0') expect(told.channelId).toBe(dm);
      await vi.waitFor(
        async () => {
          const now = await scheduling.scheduler.get(record.id);
          expect(now?.state).toBe('paused');
          expect(now?.lastRun?.status).toBe(change === 'role-budget-0' ? 'unpaid' : 'refused');
        },
        { timeout: 20_000 },
      );
      expect(under.gateway.requests.length).toBe(requestsBefore);
      expect(fresh().filter(isTheRun)).toEqual([]);

      // Paused: the next day brings no run and no second notice.
      await scheduling.clock.advanceBy(24 * 60 * 60_000);
      await pause(200);
      expect(fresh().filter((message) => expectedByChange[change].test(message.content))).toHaveLength(1);
      expect(under.gateway.requests.length).toBe(requestsBefore);
    },
    40_000,
  );
});

/** What a run that went ahead posts: a reminder, or a scheduled prompt's announcement. */
function isTheRun(message: FakeMessage): boolean {
  return message.content.startsWith('⏰ Reminder') || message.content.startsWith('🕘 hello');
}

function changeOnDiscord({
  change,
  ownerId,
  channelId,
  nowMs,
}: {
  change: ChangeAfterCreation;
  ownerId: string;
  channelId: string;
  /** The bot's clock: a timeout is judged against the time of the run. */
  nowMs: number;
}): void {
  const discord = under.discord;
  switch (change) {
    case 'role-blocked':
      discord.giveRole(ownerId, roles.blocked);
      break;
    case 'role-budget-0':
      discord.giveRole(ownerId, roles.unpaid);
      break;
    case 'admin-removed':
      discord.takeRole(ownerId, roles.managers);
      break;
    case 'member-left':
      discord.removeFromGuild(ownerId);
      break;
    case 'timed-out':
      discord.timeOut(ownerId, nowMs + 7 * 24 * 60 * 60_000);
      break;
    case 'channel-permission-lost':
      discord.denyMemberPermissions(channelId, ownerId, ['view-channel', 'send-messages']);
      break;
    case 'parley-permission-lost':
      discord.denyBotPermissions(channelId, ['send-messages']);
      break;
  }
}

/**
 * A mention sent while the bot was away (a fresh identify: Discord replays nothing) is read and
 * answered after the reconnect. Messages read that way carry no member object, and the bot's member
 * cache is only as fresh as the person's last live message: the author must be judged as Discord
 * shows them at the catch-up.
 */
const catchUpChanges = ['role-blocked', 'member-left', 'timed-out', 'channel-permission-lost'] as const;

describe('Discord: a mention caught up after a reconnect is judged with today’s facts', () => {
  it.each(catchUpChanges)(
    'after “%s” it is not answered and makes no gateway request',
    async (change) => {
      const scheduling = under.scheduling;
      if (scheduling === undefined) throw new Error('the bot runs no manual scheduling');
      const channelId = under.generalChannelId;
      const author = under.discord.createUser({ username: `asker-${change}` });
      under.discord.joinGuild(author.id);
      under.discord.giveRole(author.id, roles.askers);
      // A live mention first: the channel is active, and the bot has cached the author as allowed.
      under.gateway.enqueue({ text: JSON.stringify({ shouldSearch: false, query: '' }) });
      under.gateway.enqueue({ text: `Hello ${author.username}.` });
      under.discord.sendUserMessage({ channelId, author: author.id, content: 'hi', mentionsBot: true });
      await under.discord.waitFor(
        () => under.botMessages(channelId).find((message) => message.content === `Hello ${author.username}.`),
        { timeoutMs: 15_000 },
      );

      changeOnDiscord({ change, ownerId: author.id, channelId, nowMs: scheduling.clock.now() });
      const dm = under.discord.directMessageChannel(author.id);
      const dmBefore = under.botMessages(dm).length;
      const channelBefore = under.botMessages(channelId).length;
      const requestsBefore = under.gateway.requests.length;
      const restBefore = under.discord.requests.length;
      const gap = under.discord.interruptGateway();
      await under.discord.waitFor(() => under.discord.identifiedSessionCount === 0);
      under.discord.sendUserMessage({
        channelId,
        author: author.id,
        content: 'are you there?',
        mentionsBot: true,
      });
      gap.end();

      // The catch-up asks Discord for the author as they are now.
      await under.discord.waitFor(
        () =>
          under.discord.requests
            .slice(restBefore)
            .find((call) => call.method === 'GET' && call.path.endsWith(`/members/${author.id}`)),
        { timeoutMs: 20_000 },
      );
      if (change === 'role-blocked') {
        // Refused like a live mention: one private notice.
        await under.discord.waitFor(() =>
          under
            .botMessages(dm)
            .slice(dmBefore)
            .find((message) => cannotUse.test(message.content)),
        );
      }
      await pause(300);
      expect(under.gateway.requests.length).toBe(requestsBefore);
      expect(under.botMessages(channelId).slice(channelBefore)).toEqual([]);
    },
    40_000,
  );
});
