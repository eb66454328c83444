import type {
  APIAttachment,
  APIChannel,
  APIGuildMember,
  APIMessage,
  APIOverwrite,
  APIRole,
  APIUser,
  GuildMemberFlags,
  RoleFlags,
  ThreadMemberFlags,
} from 'discord.js';
import type { FakeAttachment } from './attachment-hosting.ts';
import type { FakeForward, FakeMessage } from './message-store.ts';
import { type BotPermission, bitsOf } from './permissions.ts';
import { discordTimestamp } from './precise-time.ts';
import {
  type FakeChannel,
  type FakeGuild,
  type FakeRole,
  type FakeUser,
  isThreadOnly,
  type World,
} from './world.ts';

// The types come from discord-api-types through discord.js (erased at runtime): the compiler then
// checks that every payload carries the fields the real API sends.

// Flag enums have no member for "none"; the API sends 0.
const noFlags = 0;

/** A user as the API sends it. */
export function apiUser(user: FakeUser): APIUser {
  return {
    id: user.id,
    username: user.username,
    discriminator: '0',
    global_name: user.globalName,
    avatar: null,
    bot: user.isBot,
    system: false,
  };
}

/** A guild member with its user. */
export function apiMember(guild: FakeGuild, user: FakeUser): APIGuildMember {
  return {
    user: apiUser(user),
    nick: null,
    avatar: null,
    banner: null,
    roles: guild.roles.filter((role) => role.memberIds.includes(user.id)).map((role) => role.id),
    joined_at: discordTimestamp(guild.joinedAtMs),
    premium_since: null,
    deaf: false,
    mute: false,
    pending: false,
    communication_disabled_until: timedOutUntil(guild, user.id),
    flags: noFlags as GuildMemberFlags,
  };
}

/** resources/guild.mdx, "Guild Member Object": `communication_disabled_until`, an ISO8601 timestamp or null. */
function timedOutUntil(guild: FakeGuild, userId: string): string | null {
  const untilMs = guild.timedOutUntilMs.get(userId);
  return untilMs === undefined ? null : discordTimestamp(untilMs);
}

/** A role. */
export function apiRole(role: FakeRole): APIRole {
  return {
    id: role.id,
    name: role.name,
    color: 0,
    colors: { primary_color: 0, secondary_color: null, tertiary_color: null },
    hoist: false,
    icon: null,
    unicode_emoji: null,
    position: role.position,
    permissions: role.permissions.toString(),
    managed: false,
    mentionable: role.isMentionable,
    flags: noFlags as RoleFlags,
  };
}

// resources/channel.mdx, "Channel Types": GUILD_FORUM is 15, GUILD_MEDIA 16.
const channelTypeNumbers: Record<FakeChannel['kind'], number> = {
  text: 0,
  'direct-message': 1,
  thread: 11,
  forum: 15,
  media: 16,
};

/** resources/message.mdx, "Message Flags": HAS_THREAD is `1 << 5`. */
const hasThreadFlag = 1 << 5;

/** resources/channel.mdx, "Channel Flags": REQUIRE_TAG is `1 << 4`. */
export const requireTagFlag = 1 << 4;

/** Discord's number for a channel (0 text, 1 DM, 11 public thread, 12 private thread, 15 forum, 16 media). */
export function channelTypeNumber(channel: FakeChannel): number {
  return channel.kind === 'thread' && channel.isPrivate ? 12 : channelTypeNumbers[channel.kind];
}

/** A channel; guild channels carry the bot's member overwrite when permissions were taken away. */
export function apiChannel(channel: FakeChannel, world: World): APIChannel {
  switch (channel.kind) {
    case 'direct-message':
      return {
        id: channel.id,
        type: 1,
        name: null,
        last_message_id: null,
        recipients: channel.recipientId === null ? [] : [apiUser(world.requireUser(channel.recipientId))],
      };
    case 'thread':
      return {
        id: channel.id,
        type: channelTypeNumber(channel) as 11,
        guild_id: channel.guildId ?? undefined,
        name: channel.name,
        parent_id: channel.parentId ?? undefined,
        owner_id: channel.ownerId ?? world.bot.id,
        last_message_id: null,
        rate_limit_per_user: 0,
        message_count: 0,
        member_count: Math.max(1, channel.threadMemberIds.length),
        // Channel objects carry the current user's thread member object when it is a member.
        ...(channel.threadMemberIds.includes(world.bot.id)
          ? {
              member: {
                id: channel.id,
                user_id: world.bot.id,
                join_timestamp: discordTimestamp(Date.now()),
                flags: noFlags as ThreadMemberFlags,
              },
            }
          : {}),
        total_message_sent: 0,
        // resources/channel.mdx, Channel Object: `applied_tags` of "a thread in a GUILD_FORUM or a
        // GUILD_MEDIA channel".
        ...(isThreadOnly(world.requireChannel(channel.parentId ?? ''))
          ? { applied_tags: [...channel.appliedTagIds] }
          : {}),
        thread_metadata: {
          archived: false,
          auto_archive_duration: channel.autoArchiveMinutes as 1440,
          archive_timestamp: discordTimestamp(Date.now()),
          locked: false,
        },
      };
    case 'forum':
    case 'media':
      // topics/threads.mdx, "Forum and Media Channel Fields": `available_tags`, and `flags` where
      // REQUIRE_TAG is the one flag such a channel uses.
      return {
        id: channel.id,
        type: channelTypeNumber(channel) as 15,
        guild_id: channel.guildId ?? undefined,
        name: channel.name,
        position: 0,
        parent_id: null,
        topic: null,
        nsfw: false,
        last_message_id: null,
        rate_limit_per_user: 0,
        permission_overwrites: botOverwrites(channel, world),
        flags: channel.requiresTag ? requireTagFlag : 0,
        available_tags: channel.availableTags.map((tag) => ({
          id: tag.id,
          name: tag.name,
          moderated: tag.isModerated,
          emoji_id: null,
          emoji_name: null,
        })),
        default_reaction_emoji: null,
        default_sort_order: null,
        default_forum_layout: 0,
        default_thread_rate_limit_per_user: 0,
      } as APIChannel;
    default:
      return {
        id: channel.id,
        type: 0,
        guild_id: channel.guildId ?? undefined,
        name: channel.name,
        position: 0,
        parent_id: null,
        topic: null,
        nsfw: false,
        last_message_id: null,
        rate_limit_per_user: 0,
        permission_overwrites: botOverwrites(channel, world),
      };
  }
}

/**
 * The channel's member overwrites (resources/channel.mdx, "Overwrite Object": type 1 is a member),
 * for the bot and for people whose permissions were taken here.
 */
function botOverwrites(channel: FakeChannel, world: World): APIOverwrite[] {
  const denied: [string, BotPermission[]][] = [
    ...(channel.deniedBotPermissions.length === 0
      ? []
      : [[world.bot.id, channel.deniedBotPermissions] as [string, BotPermission[]]]),
    ...channel.deniedMemberPermissions,
  ];
  return denied.map(([id, permissions]) => ({
    id,
    type: 1,
    allow: '0',
    deny: bitsOf(permissions).toString(),
  }));
}

/** An attachment, pointing at the fake's own file host. */
export function apiAttachment(attachment: FakeAttachment): APIAttachment {
  return {
    id: attachment.id,
    filename: attachment.filename,
    size: attachment.sizeBytes,
    url: attachment.url,
    proxy_url: attachment.url,
    content_type: attachment.contentType,
    ...(attachment.description === null ? {} : { description: attachment.description }),
  };
}

/**
 * A message. `lookup` finds the message it replies to, which Discord embeds as `referenced_message`
 * (one level deep).
 */
export function apiMessage(
  message: FakeMessage,
  world: World,
  lookup: (messageId: string) => FakeMessage | undefined,
  depth = 0,
): APIMessage {
  const referenced = message.replyToMessageId === null ? undefined : lookup(message.replyToMessageId);
  // resources/message.mdx, Message Object: `thread`, "the thread that was started from this
  // message", and the HAS_THREAD flag (`1 << 5`), "with the same id as the message".
  const startedThread = world.channels.get(message.id);
  const thread =
    startedThread?.kind === 'thread' && startedThread.parentId === message.channelId
      ? startedThread
      : undefined;
  return {
    id: message.id,
    channel_id: message.channelId,
    author: apiUser(message.author),
    content: message.content,
    timestamp: discordTimestamp(message.createdAtMs),
    edited_timestamp: message.editedAtMs === null ? null : discordTimestamp(message.editedAtMs),
    tts: false,
    mention_everyone: message.mentionsEveryone,
    mentions: message.mentionIds.flatMap((id) => {
      const user = world.users.get(id);
      return user === undefined ? [] : [apiUser(user)];
    }),
    mention_roles: message.mentionRoleIds,
    attachments: message.attachments.map(apiAttachment),
    embeds: message.embeds,
    components: message.components,
    pinned: false,
    type: message.type,
    flags: thread === undefined ? message.flags : message.flags | hasThreadFlag,
    ...(thread === undefined ? {} : { thread: apiChannel(thread, world) }),
    ...(message.webhookId === null
      ? {}
      : { webhook_id: message.webhookId, application_id: message.webhookId }),
    ...(message.forward === null ? {} : forwardFields(message.forward, world)),
    ...(message.replyToMessageId === null
      ? {}
      : {
          message_reference: {
            type: 0,
            message_id: message.replyToMessageId,
            // The reference points to where the replied-to message lives, which a test may put elsewhere.
            channel_id: referenced?.channelId ?? message.channelId,
            ...(message.guildId === null ? {} : { guild_id: referenced?.guildId ?? message.guildId }),
          },
          referenced_message:
            referenced === undefined || depth > 0 ? null : apiMessage(referenced, world, lookup, depth + 1),
        }),
  };
}

/**
 * A forward's `message_reference` (type 1, FORWARD, with the message, channel and guild it points
 * to) and its one snapshot (resources/message.mdx, "Message Reference Types" and "Message Snapshot
 * Structure": "Currently we support only 1 snapshot"; the author is left out).
 */
function forwardFields(
  forward: FakeForward,
  world: World,
): Pick<APIMessage, 'message_reference' | 'message_snapshots'> {
  const { snapshot } = forward;
  return {
    message_reference: {
      type: 1,
      message_id: forward.messageId,
      channel_id: forward.channelId,
      ...(forward.guildId === null ? {} : { guild_id: forward.guildId }),
    },
    message_snapshots: [
      {
        message: {
          type: snapshot.type,
          content: snapshot.content,
          embeds: snapshot.embeds,
          attachments: snapshot.attachments.map(apiAttachment),
          timestamp: discordTimestamp(snapshot.createdAtMs),
          edited_timestamp: snapshot.editedAtMs === null ? null : discordTimestamp(snapshot.editedAtMs),
          flags: snapshot.flags,
          mentions: snapshot.mentionIds.flatMap((id) => {
            const user = world.users.get(id);
            return user === undefined ? [] : [apiUser(user)];
          }),
          mention_roles: snapshot.mentionRoleIds,
          components: [],
          sticker_items: [],
        },
      },
    ],
  };
}

/** The GUILD_CREATE payload: the guild with its channels, threads, roles and members. */
export function apiGuildCreate(guild: FakeGuild, world: World): Record<string, unknown> {
  const channels = [...world.channels.values()].filter((channel) => channel.guildId === guild.id);
  return {
    id: guild.id,
    name: guild.name,
    icon: null,
    splash: null,
    discovery_splash: null,
    owner_id: guild.ownerId,
    afk_channel_id: null,
    afk_timeout: 300,
    verification_level: 0,
    default_message_notifications: 0,
    explicit_content_filter: 0,
    features: [],
    mfa_level: 0,
    application_id: null,
    system_channel_id: null,
    system_channel_flags: 0,
    rules_channel_id: null,
    vanity_url_code: null,
    description: null,
    banner: null,
    premium_tier: 0,
    preferred_locale: 'en-US',
    public_updates_channel_id: null,
    nsfw_level: 0,
    premium_progress_bar_enabled: false,
    safety_alerts_channel_id: null,
    emojis: [],
    stickers: [],
    joined_at: discordTimestamp(guild.joinedAtMs),
    large: false,
    unavailable: false,
    member_count: guild.memberIds.length,
    roles: guild.roles.map(apiRole),
    members: guild.memberIds.map((id) => apiMember(guild, world.requireUser(id))),
    channels: channels
      .filter((channel) => channel.kind !== 'thread')
      .map((channel) => apiChannel(channel, world)),
    // topics/threads.mdx, "Gateway Events": `threads` holds the active threads the user can view.
    threads: channels
      .filter((channel) => channel.kind === 'thread' && world.botCanView(channel))
      .map((channel) => apiChannel(channel, world)),
    voice_states: [],
    presences: [],
    stage_instances: [],
    guild_scheduled_events: [],
    soundboard_sounds: [],
  };
}
