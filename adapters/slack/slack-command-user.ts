import type { webApi } from '@slack/bolt';
import type { CommandUser } from '../../commands/define-command.ts';
import type { SlackUser } from './user-directory.ts';
import type { UserGroupDirectory } from './user-groups.ts';

/**
 * A Slack person as commands and actions see them: the directory's name and admin flag, and their user
 * groups in this workspace (the "roles" of access rules and role budgets).
 */
export function commandUserOf({
  person,
  userGroups,
  client,
  teamId,
  isInDirectMessage,
}: {
  person: SlackUser;
  userGroups: UserGroupDirectory;
  client: webApi.WebClient;
  teamId: string;
  /** Unknown where Slack does not say (a modal submission): left out rather than guessed. */
  isInDirectMessage?: boolean;
}): CommandUser {
  return {
    id: person.id,
    name: person.name,
    isAdmin: person.isAdmin,
    roleIds: userGroups.groupsOf({ client, teamId, userId: person.id }),
    ...(isInDirectMessage === undefined ? {} : { isInDirectMessage }),
  };
}
