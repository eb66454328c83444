import type { BlockAction, RespondFn, webApi } from '@slack/bolt';
import { runAction } from '../../commands/run-action.ts';
import type { SlackAdapterContext } from './adapter-context.ts';
import { createChannelResponder } from './channel-responder.ts';
import { slackActorOf } from './slack-actor.ts';

/**
 * Runs the action a click names (a button, a 👍/👎) as the person who clicked, answering in `threadTs`
 * of the clicked message's channel through the shared `runAction`. The caller has acknowledged the
 * click; a failure is logged, since Slack has nobody left to tell.
 */
export async function runClickedAction({
  adapter,
  body,
  client,
  teamId: contextTeamId,
  respond,
  channel,
  threadTs,
  actionId,
}: {
  adapter: SlackAdapterContext;
  body: BlockAction;
  client: webApi.WebClient;
  /** Bolt's `context.teamId`, when it has one. */
  teamId: string | undefined;
  respond: RespondFn;
  channel: string;
  threadTs: string | undefined;
  actionId: string;
}): Promise<void> {
  try {
    const person = await adapter.directory.lookUp({ client, userId: body.user.id });
    const teamId = contextTeamId ?? body.team?.id ?? 'unknown-team';
    const user = slackActorOf({
      person,
      userGroups: adapter.userGroups,
      client,
      teamId,
      channel: { id: channel },
    });
    const responder = createChannelResponder({
      place: { client, teamId, channel, threadTs, recipientUserId: user.id },
      context: adapter.delivery,
      respond,
    });
    await runAction({
      actionId,
      user,
      responder,
      services: adapter.services,
      signal: new AbortController().signal,
    });
  } catch (error) {
    adapter.logger.error({ err: error, actionId }, 'slack: a click failed');
  }
}
