/** Who the fake is: the one workspace, the app and its bot user. */
export interface Workspace {
  teamId: string;
  teamName: string;
  /** The workspace's subdomain, as in `<domain>.slack.com`. */
  domain: string;
  /** The app's id, `api_app_id` in payloads. */
  appId: string;
  /** The bot user's id: `user_id` in `auth.test`, what a mention of the bot looks like (`<@U…>`). */
  botUserId: string;
  /** The bot's id: `bot_id` in `auth.test` and on every message the bot posts. */
  botId: string;
  botName: string;
}

/** The workspace a fake uses unless told otherwise; payload helpers default to it too. */
export const defaultWorkspace: Workspace = {
  teamId: 'T0FAKETEAM',
  teamName: 'Fake Workspace',
  domain: 'fake-workspace',
  appId: 'A0FAKEAPP1',
  botUserId: 'U0FAKEBOT1',
  botId: 'B0FAKEBOT1',
  botName: 'parley',
};

/** A person (or another bot) in the workspace, as `users.info` describes them. */
export interface WorkspaceUser {
  id: string;
  name: string;
  realName: string;
  displayName: string;
  isBot: boolean;
  timeZone: string;
  /** A workspace admin (`is_admin` in users.info). */
  isAdmin: boolean;
  /** A workspace owner (`is_owner` in users.info). */
  isOwner: boolean;
  /** A deactivated account (`deleted` in users.info). */
  isDeleted: boolean;
}

/** A conversation, as `conversations.info` describes it. */
export interface WorkspaceChannel {
  id: string;
  name: string;
  isPrivate: boolean;
  /** A direct message between the bot and `user`. */
  isIm: boolean;
  /** For a DM: the person on the other side. */
  user?: string;
  /**
   * The people in the channel. Undefined: everyone (a test need not list them); a list: only they
   * (and the bot) are, and `chat.postEphemeral` to anyone else is refused.
   */
  members?: string[];
  /**
   * Posting is restricted here (an announcement channel; Slack's `restricted_action…` errors): the
   * value is the error chat.postMessage and chat.startStream answer.
   */
  postingRestriction?: string;
}

/** A user group (`@designers`), as `usergroups.list` describes it. */
export interface WorkspaceUserGroup {
  id: string;
  handle: string;
  name: string;
  userIds: string[];
}

/**
 * The people and conversations the fake knows. Unknown ids are made up on demand, so a test can use
 * any `U…` or `C…` id without registering it first; `add*` only sets names and kinds.
 */
export interface Directory {
  user(id: string): WorkspaceUser;
  channel(id: string): WorkspaceChannel;
  addUser(user: Partial<WorkspaceUser> & { id: string }): WorkspaceUser;
  addChannel(channel: Partial<WorkspaceChannel> & { id: string }): WorkspaceChannel;
  /** Whether a person is in a channel (the bot always is). */
  isMember(channelId: string, userId: string): boolean;
  /** The bot's DM with a person, made on first use, as Slack opens one when an app messages a user. */
  directMessageWith(userId: string): WorkspaceChannel;
  /** Whether the bot's DM with a person exists already. */
  hasDirectMessageWith(userId: string): boolean;
  readonly userGroups: Map<string, WorkspaceUserGroup>;
  addUserGroup(group: { id: string; handle: string; userIds: string[] }): WorkspaceUserGroup;
}

/** Creates the directory of one workspace; the bot user is known from the start. */
export function createDirectory(workspace: Workspace): Directory {
  const users = new Map<string, WorkspaceUser>();
  const channels = new Map<string, WorkspaceChannel>();
  const userGroups = new Map<string, WorkspaceUserGroup>();

  function addUser(user: Partial<WorkspaceUser> & { id: string }): WorkspaceUser {
    const name = user.name ?? `user-${user.id.toLowerCase()}`;
    const complete: WorkspaceUser = {
      ...user,
      name,
      realName: user.realName ?? name,
      displayName: user.displayName ?? name,
      isBot: user.isBot ?? false,
      timeZone: user.timeZone ?? 'Europe/Berlin',
      isAdmin: user.isAdmin ?? false,
      isOwner: user.isOwner ?? false,
      isDeleted: user.isDeleted ?? false,
    };
    users.set(user.id, complete);
    return complete;
  }

  function addChannel(channel: Partial<WorkspaceChannel> & { id: string }): WorkspaceChannel {
    // Slack's id prefixes say the kind: D for a DM, G for an old private channel, C for the rest.
    const isIm = channel.isIm ?? channel.id.startsWith('D');
    const complete: WorkspaceChannel = {
      ...channel,
      name: channel.name ?? (isIm ? channel.id : `channel-${channel.id.toLowerCase()}`),
      isPrivate: channel.isPrivate ?? (isIm || channel.id.startsWith('G')),
      isIm,
    };
    channels.set(channel.id, complete);
    return complete;
  }

  addUser({ id: workspace.botUserId, name: workspace.botName, isBot: true });

  const channel = (id: string) => channels.get(id) ?? addChannel({ id });
  return {
    user: (id) => users.get(id) ?? addUser({ id }),
    channel,
    addUser,
    addChannel,
    isMember(channelId, userId) {
      const { members, isIm, user } = channel(channelId);
      if (userId === workspace.botUserId) return true;
      if (isIm) return user === undefined || user === userId;
      return members === undefined || members.includes(userId);
    },
    userGroups,
    addUserGroup(group) {
      const complete = { ...group, name: group.handle };
      userGroups.set(group.id, complete);
      return complete;
    },
    directMessageWith(userId) {
      const existing = [...channels.values()].find((entry) => entry.isIm && entry.user === userId);
      return existing ?? addChannel({ id: `D${userId.slice(1)}`, isIm: true, user: userId });
    },
    hasDirectMessageWith: (userId) =>
      [...channels.values()].some((entry) => entry.isIm && entry.user === userId),
  };
}
