import type { App, BlockAction } from '@slack/bolt';
import { runAction } from '../../commands/run-action.ts';
import type { SlackAdapterContext } from './adapter-context.ts';
import { createChannelResponder } from './channel-responder.ts';
import { feedbackActionId } from './render-blocks.ts';
import { commandUserOf } from './slack-command-user.ts';

/** The click of one side of a feedback_buttons element: its `value` names the action (@slack/bolt FeedbackButtonsAction). */
interface FeedbackButtonsAction {
  readonly type: 'feedback_buttons';
  readonly action_id: string;
  readonly value: string;
}

/**
 * 👍/👎 clicks: acknowledged at once, then the side's action runs through the shared `runAction`
 * (commands/rate-reply.ts keeps the rating with the turn and its model, and counts it in /metrics).
 */
export function registerFeedbackButtons({ app, adapter }: { app: App; adapter: SlackAdapterContext }): void {
  app.action<BlockAction>(
    { type: 'block_actions', action_id: feedbackActionId },
    async ({ ack, body, action, respond, client, context }) => {
      await ack();
      const clicked = action as unknown as FeedbackButtonsAction;
      const channel = body.container.channel_id ?? body.channel?.id;
      if (channel === undefined || typeof clicked.value !== 'string') return;
      try {
        const person = await adapter.directory.lookUp({ client, userId: body.user.id });
        const teamId = context.teamId ?? body.team?.id ?? 'unknown-team';
        const user = commandUserOf({
          person,
          userGroups: adapter.userGroups,
          client,
          teamId,
          isInDirectMessage: channel.startsWith('D'),
        });
        const message = body.message as { ts?: string; thread_ts?: string } | undefined;
        const responder = createChannelResponder({
          place: {
            client,
            teamId,
            channel,
            threadTs: message?.thread_ts ?? message?.ts,
            recipientUserId: user.id,
          },
          context: adapter.delivery,
          respond,
        });
        await runAction({
          actionId: clicked.value,
          user,
          responder,
          services: adapter.services,
          signal: new AbortController().signal,
        });
      } catch (error) {
        adapter.logger.error({ err: error }, 'slack: a feedback click failed');
      }
    },
  );
}
