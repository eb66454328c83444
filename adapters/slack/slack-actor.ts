import type { webApi } from '@slack/bolt';
import type { Actor, ActorContext } from '../../src/access/actor.ts';
import type { SlackUser } from './user-directory.ts';
import type { UserGroupDirectory } from './user-groups.ts';

/**
 * The one place a Slack person becomes an `Actor`, for every entry point (mentions, DMs, slash
 * commands, buttons, shortcuts, forms, App Home): the directory's name and admin flag (workspace
 * admin or owner, users.info `is_admin`/`is_owner`), their user groups in this workspace (the
 * "roles" of access rules and role budgets), and where they are.
 */
export function slackActorOf({
  person,
  userGroups,
  client,
  teamId,
  channel,
}: {
  person: SlackUser;
  userGroups: UserGroupDirectory;
  client: webApi.WebClient;
  teamId: string;
  /** Where they act, as far as Slack says; absent (a modal submission): a workspace place. */
  channel?: SlackChannelFacts;
}): Actor {
  return {
    id: person.id,
    name: person.name,
    isAdmin: person.isAdmin,
    roleIds: userGroups.groupsOf({ client, teamId, userId: person.id }),
    context: channel === undefined ? 'server' : slackContextOf(channel),
  };
}

/** What Slack tells of a conversation: its id, and the type or name an event or command carries. */
export interface SlackChannelFacts {
  readonly id: string;
  /** Events' `channel_type`: `im`, `mpim`, `channel`, `group`. */
  readonly type?: string | undefined;
  /** Slash commands' `channel_name`: `directmessage`, `mpdm-…`, or the channel's name. */
  readonly name?: string | undefined;
}

/**
 * A DM's id starts with D (Slack's conversation id prefixes), and commands name it
 * `directmessage`; a multi-person DM is `mpim` in events and `mpdm-…` by name.
 */
export function slackContextOf(channel: SlackChannelFacts): ActorContext {
  if (channel.type === 'im' || channel.id.startsWith('D') || channel.name === 'directmessage') {
    return 'direct-message';
  }
  if (channel.type === 'mpim' || channel.name?.startsWith('mpdm-') === true) return 'group-direct-message';
  return 'server';
}
