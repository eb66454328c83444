import type { App, BlockAction } from '@slack/bolt';
import type { SlackAdapterContext } from './adapter-context.ts';
import { feedbackActionId } from './render-blocks.ts';
import { runClickedAction } from './run-clicked-action.ts';

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
      const message = body.message as { ts?: string; thread_ts?: string } | undefined;
      await runClickedAction({
        adapter,
        body,
        client,
        teamId: context.teamId,
        respond,
        channel,
        threadTs: message?.thread_ts ?? message?.ts,
        actionId: clicked.value,
      });
    },
  );
}
