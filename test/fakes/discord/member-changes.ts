import { apiChannel, apiMember } from './api-objects.ts';
import type { FakeDiscordContext } from './fake-context.ts';
import { guildsDispatch } from './gateway-intents.ts';
import type { DispatchBuilder } from './gateway-server.ts';
import type { BotPermission } from './permissions.ts';
import type { FakeGuild } from './world.ts';

/**
 * What a server's moderators do to a member after the fact: give or take a role, time them out,
 * kick them (or they leave), take a channel from them. The REST member object (Get Guild Member)
 * shows each at once; the gateway tells only sessions that asked for it (below).
 */
export interface MemberChanges {
  /** Makes a person a member of the guild (they joined). */
  joinGuild(userId: string): void;
  giveRole(userId: string, roleId: string): void;
  takeRole(userId: string, roleId: string): void;
  /** Times the member out until `untilMs` (Modify Guild Member's `communication_disabled_until`). */
  timeOut(userId: string, untilMs: number): void;
  /** The member leaves, or is kicked: Get Guild Member answers 10007 Unknown Member from now on. */
  removeFromGuild(userId: string): void;
  /**
   * Takes permissions from a person in a channel through a member overwrite, dispatching
   * CHANNEL_UPDATE (sent with the GUILDS intent, events/gateway-events.mdx, "Channel Update").
   */
  denyMemberPermissions(channelId: string, userId: string, permissions: readonly BotPermission[]): void;
}

/**
 * events/gateway.mdx, "Gateway Intents": GUILD_MEMBER_UPDATE and GUILD_MEMBER_REMOVE come only
 * with GUILD_MEMBERS (`1 << 1`), a privileged intent; a bot without it (parley asks for none) hears
 * nothing of other people's roles, timeouts or leaving, and its member cache goes stale.
 */
const guildMembersIntent = 1 << 1;
function guildMembersDispatch(data: unknown): DispatchBuilder {
  return (sessionIntents) => ((sessionIntents & guildMembersIntent) === 0 ? undefined : data);
}

export function createMemberChanges(context: FakeDiscordContext, guild: FakeGuild): MemberChanges {
  const { world } = context;
  const roleOf = (roleId: string) => {
    const role = guild.roles.find((candidate) => candidate.id === roleId);
    if (role === undefined) throw new Error(`fake discord: no role ${roleId}`);
    return role;
  };
  const announceUpdate = (userId: string) =>
    context.gateway.dispatch(
      'GUILD_MEMBER_UPDATE',
      guildMembersDispatch({ ...apiMember(guild, world.requireUser(userId)), guild_id: guild.id }),
    );
  return {
    joinGuild(userId) {
      world.addMember(guild.id, userId);
    },
    giveRole(userId, roleId) {
      const role = roleOf(roleId);
      if (!role.memberIds.includes(userId)) role.memberIds.push(userId);
      announceUpdate(userId);
    },
    takeRole(userId, roleId) {
      const role = roleOf(roleId);
      role.memberIds = role.memberIds.filter((memberId) => memberId !== userId);
      announceUpdate(userId);
    },
    timeOut(userId, untilMs) {
      guild.timedOutUntilMs.set(userId, untilMs);
      announceUpdate(userId);
    },
    removeFromGuild(userId) {
      const user = world.requireUser(userId);
      guild.memberIds = guild.memberIds.filter((memberId) => memberId !== userId);
      // resources/guild.mdx: a member's roles are the guild's; one who leaves holds none.
      for (const role of guild.roles)
        role.memberIds = role.memberIds.filter((memberId) => memberId !== userId);
      context.gateway.dispatch(
        'GUILD_MEMBER_REMOVE',
        guildMembersDispatch({ guild_id: guild.id, user: { id: user.id, username: user.username } }),
      );
    },
    denyMemberPermissions(channelId, userId, permissions) {
      const channel = world.requireChannel(channelId);
      const denied = channel.deniedMemberPermissions.get(userId) ?? [];
      channel.deniedMemberPermissions.set(userId, [...new Set([...denied, ...permissions])]);
      context.gateway.dispatch(
        channel.kind === 'thread' ? 'THREAD_UPDATE' : 'CHANNEL_UPDATE',
        guildsDispatch(apiChannel(channel, world)),
      );
    },
  };
}
