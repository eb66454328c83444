import type { ToolStep } from '../../src/gateway/chat-types.ts';
import {
  appendChunksToNativeStream,
  type NativeStream,
  startNativeStream,
  stopNativeStream,
} from './native-stream.ts';
import type { ReplyPlace, SlackDeliveryContext } from './reply-place.ts';
import { slackErrorCodeOf } from './slack-errors.ts';
import { mayStreamNatively, rememberStreamRefusal } from './stream-refusals.ts';
import { taskUpdateOf } from './task-cards.ts';

/**
 * A command's long work (drawing with /imagine in a thread) as one task card: a native stream of
 * the thread that holds only the card (chat.startStream with a `task_update` chunk and no text),
 * in progress while the work runs and ended complete or in error with chat.stopStream, above the
 * command's answer. Answers `not-shown` where Slack will not stream here (no thread, a workspace or
 * channel that refused streams, the chat.startStream budget spent), and the command shows its
 * progress line instead.
 */
export function createCommandStepCard({
  place,
  context,
}: {
  place: ReplyPlace;
  context: SlackDeliveryContext;
}): {
  show(step: ToolStep): Promise<'shown' | 'not-shown'>;
} {
  let stream: NativeStream | undefined;
  let isRefused = false;
  const target = (method: string) => ({ teamId: place.teamId, method, channel: place.channel });
  const start = async (step: ToolStep): Promise<'shown' | 'not-shown'> => {
    const { threadTs, recipientUserId } = place;
    if (
      threadTs === undefined ||
      recipientUserId === undefined ||
      !mayStreamNatively(context.features, place)
    ) {
      return 'not-shown';
    }
    try {
      // Tier 2: when the budget is spent the progress line does as well.
      const started = await context.outbound.tryNow({
        target: target('chat.startStream'),
        run: () =>
          startNativeStream({
            place: { ...place, threadTs, recipientUserId },
            text: '',
            chunks: [taskUpdateOf(step)],
          }),
      });
      if (started === undefined) return 'not-shown';
      stream = started.result;
      return 'shown';
    } catch (error) {
      rememberStreamRefusal({ features: context.features, place, errorCode: slackErrorCodeOf(error) });
      context.logger.info({ err: error }, 'slack: could not show a command step as a task card');
      return 'not-shown';
    }
  };
  return {
    async show(step) {
      if (isRefused) return 'not-shown';
      const open = stream;
      if (open === undefined) {
        const shown = await start(step);
        // One refusal is enough: the command shows progress lines from then on.
        if (shown === 'not-shown') isRefused = true;
        return shown;
      }
      const chunks = [taskUpdateOf(step)];
      const isOver = step.status !== 'running' && step.status !== 'waiting';
      try {
        const written = await context.outbound.schedule({
          priority: isOver ? 'final-write' : 'edit',
          target: target(isOver ? 'chat.stopStream' : 'chat.appendStream'),
          run: () =>
            isOver
              ? stopNativeStream({ place, stream: open, text: '', actions: [], chunks })
              : appendChunksToNativeStream({ place, stream: open, chunks }),
        });
        return written === 'closed' ? 'not-shown' : 'shown';
      } catch (error) {
        context.logger.info({ err: error }, 'slack: could not update a command step’s task card');
        return 'not-shown';
      }
    },
  };
}
