import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { actionIdPattern } from '../../commands/action-store.ts';
import { runAction } from '../../commands/run-action.ts';
import type { SlackAdapterContext } from './adapter-context.ts';
import { createChannelResponder } from './channel-responder.ts';
import { commandUserOf } from './slack-command-user.ts';

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
      try {
        // The private Stop button of a native stream has done its job once pressed.
        if (body.container.is_ephemeral === true) {
          await respond({ delete_original: true }).catch(() => undefined);
        }
        const person = await adapter.directory.lookUp({ client, userId: body.user.id });
        const teamId = context.teamId ?? body.team?.id ?? 'unknown-team';
        const user = commandUserOf({
          person,
          userGroups: adapter.userGroups,
          client,
          teamId,
          isInDirectMessage: channel.startsWith('D'),
        });
        const responder = createChannelResponder({
          place: {
            client,
            teamId,
            channel,
            threadTs: threadOf(body),
            recipientUserId: user.id,
          },
          context: adapter.delivery,
          respond,
        });
        await runAction({
          actionId: action.action_id,
          user,
          responder,
          services: adapter.services,
          signal: new AbortController().signal,
        });
      } catch (error) {
        adapter.logger.error({ err: error, actionId: action.action_id }, 'slack: button click failed');
      }
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
