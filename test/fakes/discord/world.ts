import { type BotPermission, bitsOf, everyonePermissions } from './permissions.ts';
import type { SnowflakeGenerator } from './snowflake.ts';

/** A Discord account the fake knows: the bot or a person. */
export interface FakeUser {
  id: string;
  username: string;
  globalName: string | null;
  isBot: boolean;
}

/** A guild role. The @everyone role has the guild's id, as on Discord. */
export interface FakeRole {
  id: string;
  name: string;
  permissions: bigint;
  position: number;
  /** Anyone may ping it; otherwise only authors with Mention Everyone. */
  isMentionable: boolean;
  /** Who has the role (everyone has @everyone, which lists nobody). */
  memberIds: string[];
}

/** A guild (a "server"). */
export interface FakeGuild {
  id: string;
  name: string;
  ownerId: string;
  roles: FakeRole[];
  /** Member user ids, in the order they joined. */
  memberIds: string[];
  joinedAtMs: number;
  /**
   * Members timed out, with when it ends (ms since the epoch): the member object's
   * `communication_disabled_until` (resources/guild.mdx, "Guild Member Object": "when the user's
   * timeout will expire and the user will be able to communicate in the guild again, null or a time
   * in the past if the user is not timed out").
   */
  timedOutUntilMs: Map<string, number>;
}

/**
 * The kinds of channel the fake hosts. `forum` (GUILD_FORUM, 15) and `media` (GUILD_MEDIA, 16) hold
 * only threads, shown as posts (topics/threads.mdx, "Forums" and "Media Channels").
 */
export type FakeChannelKind = 'text' | 'thread' | 'direct-message' | 'forum' | 'media';

/** A tag a forum or media channel offers its posts (resources/channel.mdx, "Forum Tag Object"). */
export interface FakeForumTag {
  id: string;
  /** 0-20 characters. */
  name: string;
  /** Only members with MANAGE_THREADS may add or remove it. */
  isModerated: boolean;
}

/** A channel: a guild text, forum or media channel, a thread (or post) in one, or a DM with one person. */
export interface FakeChannel {
  id: string;
  kind: FakeChannelKind;
  name: string;
  /** `null` for a DM. */
  guildId: string | null;
  /** The text channel a thread belongs to. */
  parentId: string | null;
  /** The person at the other end of a DM. */
  recipientId: string | null;
  /** Permissions taken from the bot here, through a member overwrite. */
  deniedBotPermissions: BotPermission[];
  /** Permissions taken from people here, by user id, through member overwrites (type 1). */
  deniedMemberPermissions: Map<string, BotPermission[]>;
  /**
   * A private thread: only its members see it (topics/threads.mdx, "Public & Private Threads":
   * "You must be invited to the thread to be able to view or participate in it").
   */
  isPrivate: boolean;
  /** Who joined the thread; empty for other channels. */
  threadMemberIds: string[];
  /** Who started the thread (`owner_id`); `null` for other channels and threads made by a test. */
  ownerId: string | null;
  /** A thread's `auto_archive_duration`, in minutes. */
  autoArchiveMinutes: number;
  /** When a thread's name was changed through the API, for the rename limit. */
  nameChangesAtMs: number[];
  /** A forum or media channel's `available_tags`; empty for other channels. */
  availableTags: FakeForumTag[];
  /**
   * A forum or media channel with the REQUIRE_TAG flag (`1 << 4`, resources/channel.mdx, "Channel
   * Flags"): every new post needs one of its tags.
   */
  requiresTag: boolean;
  /** A post's `applied_tags`, ids of its forum's tags; empty for other channels. */
  appliedTagIds: string[];
}

/** Channels whose children are all threads, shown as posts: forum and media channels. */
export function isThreadOnly(channel: Pick<FakeChannel, 'kind'>): boolean {
  return channel.kind === 'forum' || channel.kind === 'media';
}

/** The guilds, channels and people of the fake, and the bot itself. */
export interface World {
  readonly bot: FakeUser;
  readonly users: Map<string, FakeUser>;
  readonly guilds: Map<string, FakeGuild>;
  readonly channels: Map<string, FakeChannel>;
  addUser(options: { username: string; globalName?: string; isBot?: boolean }): FakeUser;
  /**
   * A guild; `isBotMember: false` makes one the bot was never added to, where only a person's own
   * install of the app reaches (the bot gets no READY entry, no events, and no access).
   */
  addGuild(options: { name: string; ownerId: string; isBotMember?: boolean }): FakeGuild;
  /** The guilds the bot is in: those READY lists. */
  botGuilds(): FakeGuild[];
  addMember(guildId: string, userId: string): void;
  addRole(
    guildId: string,
    options: { name: string; permissions: bigint; isMentionable: boolean; memberIds: readonly string[] },
  ): FakeRole;
  addTextChannel(options: { guildId: string; name: string }): FakeChannel;
  /** A forum or media channel with these tags (each gets an id). */
  addThreadOnlyChannel(options: {
    guildId: string;
    name: string;
    kind: 'forum' | 'media';
    tags?: readonly { name: string; isModerated?: boolean }[];
    requiresTag?: boolean;
  }): FakeChannel;
  addThread(options: {
    parentId: string;
    name: string;
    isPrivate?: boolean;
    memberIds?: readonly string[];
    /** A thread started from a message takes the message's id (topics/threads.mdx). */
    id?: string;
    ownerId?: string;
    autoArchiveMinutes?: number;
    /** A post's tags, in a forum or media channel. */
    appliedTagIds?: readonly string[];
  }): FakeChannel;
  /** The DM channel between the bot and `userId`, created on first use. */
  directMessageChannel(userId: string): { channel: FakeChannel; isNew: boolean };
  /** The user, or an error naming the id: a test that mistypes an id should fail loudly. */
  requireUser(userId: string): FakeUser;
  requireChannel(channelId: string): FakeChannel;
  /** The permissions the bot has in a channel (everything in a DM, nothing where it cannot see). */
  botPermissionsIn(channel: FakeChannel): bigint;
  /** Whether the bot sees the channel at all: a private thread only when it is a member. */
  botCanView(channel: FakeChannel): boolean;
}

/** Creates an empty world with just the bot in it. */
export function createWorld(ids: SnowflakeGenerator, botUsername: string): World {
  const users = new Map<string, FakeUser>();
  const guilds = new Map<string, FakeGuild>();
  const channels = new Map<string, FakeChannel>();

  function addUser(options: { username: string; globalName?: string; isBot?: boolean }): FakeUser {
    const user: FakeUser = {
      id: ids.next(),
      username: options.username,
      globalName: options.globalName ?? null,
      isBot: options.isBot ?? false,
    };
    users.set(user.id, user);
    return user;
  }

  const bot = addUser({ username: botUsername, isBot: true });

  function requireUser(userId: string): FakeUser {
    const user = users.get(userId);
    if (user === undefined) {
      throw new Error(`fake discord: no user ${userId}`);
    }
    return user;
  }

  function requireGuild(guildId: string): FakeGuild {
    const guild = guilds.get(guildId);
    if (guild === undefined) {
      throw new Error(`fake discord: no guild ${guildId}`);
    }
    return guild;
  }

  function requireChannel(channelId: string): FakeChannel {
    const channel = channels.get(channelId);
    if (channel === undefined) {
      throw new Error(`fake discord: no channel ${channelId}`);
    }
    return channel;
  }

  function addChannel(
    channel: Omit<
      FakeChannel,
      | 'id'
      | 'deniedBotPermissions'
      | 'deniedMemberPermissions'
      | 'isPrivate'
      | 'threadMemberIds'
      | 'ownerId'
      | 'autoArchiveMinutes'
      | 'nameChangesAtMs'
      | 'availableTags'
      | 'requiresTag'
      | 'appliedTagIds'
    > &
      Partial<
        Pick<
          FakeChannel,
          | 'id'
          | 'isPrivate'
          | 'threadMemberIds'
          | 'ownerId'
          | 'autoArchiveMinutes'
          | 'availableTags'
          | 'requiresTag'
          | 'appliedTagIds'
        >
      >,
  ): FakeChannel {
    const created: FakeChannel = {
      id: ids.next(),
      deniedBotPermissions: [],
      deniedMemberPermissions: new Map(),
      isPrivate: false,
      threadMemberIds: [],
      ownerId: null,
      autoArchiveMinutes: 1440,
      nameChangesAtMs: [],
      availableTags: [],
      requiresTag: false,
      appliedTagIds: [],
      ...channel,
    };
    channels.set(created.id, created);
    return created;
  }

  function botCanView(channel: FakeChannel): boolean {
    return !channel.isPrivate || channel.threadMemberIds.includes(bot.id);
  }

  return {
    bot,
    users,
    guilds,
    channels,
    addUser,
    addGuild(options) {
      const id = ids.next();
      const guild: FakeGuild = {
        id,
        name: options.name,
        ownerId: options.ownerId,
        roles: [
          {
            id,
            name: '@everyone',
            permissions: everyonePermissions,
            position: 0,
            isMentionable: false,
            memberIds: [],
          },
        ],
        memberIds:
          options.isBotMember === false ? [options.ownerId] : [...new Set([bot.id, options.ownerId])],
        joinedAtMs: Date.now(),
        timedOutUntilMs: new Map(),
      };
      guilds.set(id, guild);
      return guild;
    },
    addMember(guildId, userId) {
      const guild = requireGuild(guildId);
      requireUser(userId);
      if (!guild.memberIds.includes(userId)) {
        guild.memberIds.push(userId);
      }
    },
    addRole(guildId, options) {
      const guild = requireGuild(guildId);
      const role: FakeRole = {
        id: ids.next(),
        name: options.name,
        permissions: options.permissions,
        position: guild.roles.length,
        isMentionable: options.isMentionable,
        memberIds: [...options.memberIds],
      };
      guild.roles.push(role);
      return role;
    },
    addTextChannel(options) {
      requireGuild(options.guildId);
      return addChannel({
        kind: 'text',
        name: options.name,
        guildId: options.guildId,
        parentId: null,
        recipientId: null,
      });
    },
    addThreadOnlyChannel(options) {
      requireGuild(options.guildId);
      return addChannel({
        kind: options.kind,
        name: options.name,
        guildId: options.guildId,
        parentId: null,
        recipientId: null,
        availableTags: (options.tags ?? []).map((tag) => ({
          id: ids.next(),
          name: tag.name,
          isModerated: tag.isModerated ?? false,
        })),
        requiresTag: options.requiresTag ?? false,
      });
    },
    addThread(options) {
      const parent = requireChannel(options.parentId);
      if (!(parent.kind === 'text' || isThreadOnly(parent)) || parent.guildId === null) {
        throw new Error(
          `fake discord: a thread needs a guild text, forum or media channel as parent, not ${parent.kind}`,
        );
      }
      return addChannel({
        kind: 'thread',
        name: options.name,
        guildId: parent.guildId,
        parentId: parent.id,
        recipientId: null,
        isPrivate: options.isPrivate ?? false,
        threadMemberIds: [...(options.memberIds ?? [])],
        ...(options.id === undefined ? {} : { id: options.id }),
        ...(options.ownerId === undefined ? {} : { ownerId: options.ownerId }),
        ...(options.autoArchiveMinutes === undefined
          ? {}
          : { autoArchiveMinutes: options.autoArchiveMinutes }),
        appliedTagIds: [...(options.appliedTagIds ?? [])],
      });
    },
    directMessageChannel(userId) {
      requireUser(userId);
      for (const channel of channels.values()) {
        if (channel.kind === 'direct-message' && channel.recipientId === userId) {
          return { channel, isNew: false };
        }
      }
      const channel = addChannel({
        kind: 'direct-message',
        name: '',
        guildId: null,
        parentId: null,
        recipientId: userId,
      });
      return { channel, isNew: true };
    },
    requireUser,
    requireChannel,
    botCanView,
    botGuilds: () => [...guilds.values()].filter((guild) => guild.memberIds.includes(bot.id)),
    botPermissionsIn(channel) {
      if (channel.guildId === null) {
        return everyonePermissions;
      }
      const guild = requireGuild(channel.guildId);
      if (!botCanView(channel) || !guild.memberIds.includes(bot.id)) {
        return 0n;
      }
      // @everyone's permissions and those of every role the bot has.
      const granted = guild.roles
        .filter((role, index) => index === 0 || role.memberIds.includes(bot.id))
        .reduce((bits, role) => bits | role.permissions, 0n);
      const threadParent = channel.parentId === null ? undefined : channels.get(channel.parentId);
      // A thread inherits the permissions of its parent channel, overwrites included.
      const denied = bitsOf([...channel.deniedBotPermissions, ...(threadParent?.deniedBotPermissions ?? [])]);
      return granted & ~denied;
    },
  };
}
