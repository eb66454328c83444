import {
  type Channel,
  ChannelType,
  type Client,
  DiscordAPIError,
  type GuildMember,
  PermissionFlagsBits,
  RESTJSONErrorCodes,
} from 'discord.js';
import type { AbsenceReason, ActorNow } from '../../commands/scheduled-places.ts';
import { placeOfConversation } from '../../src/conversation/turn.ts';
import { discordMemberActorOf } from './discord-actor.ts';

/** Discord's answers that mean "not there": the rest (a network error, a 5xx) reject, and the run is retried. */
const goneCodes: readonly number[] = [
  RESTJSONErrorCodes.UnknownMember,
  RESTJSONErrorCodes.UnknownUser,
  RESTJSONErrorCodes.UnknownChannel,
  RESTJSONErrorCodes.MissingAccess,
];

async function unlessGone<Value>(request: Promise<Value>): Promise<Value | undefined> {
  try {
    return await request;
  } catch (error) {
    if (error instanceof DiscordAPIError && typeof error.code === 'number' && goneCodes.includes(error.code))
      return undefined;
    throw error;
  }
}

const absent = (reason: AbsenceReason): ActorNow => ({ isPresent: false, reason });

/**
 * A schedule's owner as Discord shows them at the run. The bot asks for no GUILD_MEMBERS intent, so
 * its member cache hears nothing of roles given, timeouts or people leaving (events/gateway.mdx,
 * "Gateway Intents"): the member is fetched afresh (Get Guild Member; 10007 Unknown Member once they
 * left or were kicked), and so is the channel with its overwrites. Timed out: the member object's
 * `communication_disabled_until` is still ahead (resources/guild.mdx, "Guild Member Object"; a past
 * value means the timeout is over). The Actor comes from `discordMemberActorOf`, as for a message.
 */
export async function discordActorNow({
  client,
  userId,
  conversationKey,
  postsThere,
  atMs,
}: {
  client: Client;
  userId: string;
  conversationKey: string;
  postsThere: boolean;
  atMs: number;
}): Promise<ActorNow> {
  const { workspace, channel: channelId } = placeOfConversation(conversationKey);
  // A thread is a channel of its own on Discord, with its parent's permissions.
  const placeId = conversationKey.split(':')[3] ?? channelId;
  const guild = workspace === 'dm' ? undefined : client.guilds.cache.get(workspace);
  if (guild === undefined) {
    const user = await unlessGone(client.users.fetch(userId, { force: true }));
    if (user === undefined) return absent('left');
    // No server parley is in: a DM (nobody is an admin there), a group DM or a person's own install.
    const context =
      workspace !== 'dm'
        ? 'user-install'
        : (await unlessGone(client.channels.fetch(placeId)))?.type === ChannelType.DM
          ? 'direct-message'
          : 'group-direct-message';
    return { isPresent: true, actor: discordMemberActorOf({ user, member: null, context }) };
  }
  const member = await unlessGone(guild.members.fetch({ user: userId, force: true }));
  if (member === undefined) return absent('left');
  if ((member.communicationDisabledUntilTimestamp ?? 0) > atMs) return absent('timed-out');
  // No channel: the server as a whole (the owner's console asks who administers it), judged by the
  // member's own permissions.
  if (placeId === '') {
    return { isPresent: true, actor: discordMemberActorOf({ user: member.user, member, context: 'server' }) };
  }
  const channel = await unlessGone(client.channels.fetch(placeId, { force: true }));
  const refusal = channelRefusal({ channel, member, botUserId: client.user?.id, postsThere });
  if (refusal !== undefined) return absent(refusal);
  return { isPresent: true, actor: discordMemberActorOf({ user: member.user, member, context: 'server' }) };
}

/**
 * Whether the member may still see and write in the channel (a reminder answers elsewhere, but it
 * was made there and is that place's to allow), and, when the run posts there, whether parley may.
 * A channel parley can no longer fetch cannot be judged for the member; a run that posts there is
 * refused.
 */
function channelRefusal({
  channel,
  member,
  botUserId,
  postsThere,
}: {
  channel: Channel | null | undefined;
  member: GuildMember;
  botUserId: string | undefined;
  postsThere: boolean;
}): AbsenceReason | undefined {
  if (channel === null || channel === undefined || !('permissionsFor' in channel))
    return postsThere ? 'parley-cannot-post-here' : undefined;
  const send = channel.isThread()
    ? PermissionFlagsBits.SendMessagesInThreads
    : PermissionFlagsBits.SendMessages;
  const needed = [PermissionFlagsBits.ViewChannel, send];
  if (channel.permissionsFor(member)?.has(needed) !== true) return 'cannot-post-here';
  if (postsThere && (botUserId === undefined || channel.permissionsFor(botUserId)?.has(needed) !== true))
    return 'parley-cannot-post-here';
  return undefined;
}
