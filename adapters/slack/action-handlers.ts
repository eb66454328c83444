import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { actionIdPattern } from '../../commands/action-store.ts';
import type { SlackAdapterContext } from './adapter-context.ts';
import { runClickedAction } from './run-clicked-action.ts';

/**
 * Button clicks (Stop, Regenerate, Continue, Vary): acknowledged at once, then run through the
 * shared `runAction`, answering in the thread (or channel) of the message clicked.
 */
export function registerActions({ app, adapter }: { app: App; adapter: SlackAdapterContext }): void {
  app.action<BlockAction<ButtonAction>>(
    { type: 'block_actions', action_id: actionIdPattern },
    async ({ ack, body, action, respond, client, context }) => {
      await ack();
      const channel = body.container.channel_id ?? body.channel?.id;
      if (channel === undefined) return;
      // The private Stop button of a native stream has done its job once pressed.
      if (body.container.is_ephemeral === true) {
        await respond({ delete_original: true }).catch(() => undefined);
      }
      await runClickedAction({
        adapter,
        body,
        client,
        teamId: context.teamId,
        respond,
        channel,
        threadTs: threadOf(body),
        actionId: action.action_id,
      });
    },
  );
}

// A message inside a thread names the thread in `thread_ts`; a thread's parent names itself there,
// and its answers belong beside it, not under it.
function threadOf(body: BlockAction): string | undefined {
  const message = body.message as { ts?: string; thread_ts?: string } | undefined;
  const threadTs = message?.thread_ts ?? (body.container as { thread_ts?: string }).thread_ts;
  return threadTs !== undefined && threadTs !== message?.ts ? threadTs : undefined;
}
