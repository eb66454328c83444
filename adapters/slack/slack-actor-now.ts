import type { webApi } from '@slack/bolt';
import type { ActorNow } from '../../commands/scheduled-places.ts';
import { placeOfConversation } from '../../src/conversation/turn.ts';
import { slackActorOf } from './slack-actor.ts';
import type { UserDirectory } from './user-directory.ts';
import type { UserGroupDirectory } from './user-groups.ts';

/**
 * A schedule's owner as Slack shows them at the run, through `slackActorOf` like every live entry
 * point: users.info asked afresh (a deactivated account, `deleted`, or one Slack no longer knows
 * cannot act; admin from `is_admin`/`is_owner` as they are now) and the user groups listed afresh.
 * Slack has no timeouts. Membership of the channel is not asked: conversations.members pages a
 * channel's whole list ("We recommend no more than 200 results at a time",
 * docs.slack.dev/reference/methods/conversations.members), so a run in a channel of thousands would
 * cost dozens of calls, and a public channel is open to every member of the workspace anyway; a
 * channel parley was removed from fails the run's post (`not_in_channel`) and the run is retried.
 */
export async function slackActorNow({
  client,
  directory,
  userGroups,
  userId,
  conversationKey,
}: {
  client: webApi.WebClient;
  directory: UserDirectory;
  userGroups: UserGroupDirectory;
  userId: string;
  conversationKey: string;
}): Promise<ActorNow> {
  const { workspace: teamId, channel } = placeOfConversation(conversationKey);
  const person = await directory.lookUpNow({ client, userId });
  if (person === 'unknown') return { isPresent: false, reason: 'left' };
  if (person === 'deactivated') return { isPresent: false, reason: 'deactivated' };
  await userGroups.refreshNow({ client, teamId });
  return {
    isPresent: true,
    actor: slackActorOf({ person, userGroups, client, teamId, channel: { id: channel } }),
  };
}
