import { agentSessionStatusOf } from './agent-sessions.ts';
import type { ReplyPlace, SlackDeliveryContext } from './reply-place.ts';
import { slackErrorCodeOf } from './slack-errors.ts';
import { isMissingFeatureError } from './workspace-features.ts';

/**
 * "is thinking…" under the thread (`assistant.threads.setStatus`), where the workspace allows it, or
 * another `status` ("🔎 searching: …"). Slack clears it by itself when the reply arrives. Never
 * throws: a status is not worth a failed reply.
 */
export async function showThinkingStatus(
  place: ReplyPlace,
  context: SlackDeliveryContext,
  status = 'is thinking…',
): Promise<void> {
  if (place.threadTs === undefined || !context.features.isAvailable(place.teamId, 'threadStatus')) return;
  // An agent session at work already shows it (processing, with its stop button; suspended while
  // it waits for the asker), agent-sessions.ts.
  const session = agentSessionStatusOf(context, place);
  if (session === 'processing' || session === 'suspended') return;
  const threadTs = place.threadTs;
  try {
    // A courtesy: it goes when the method's budget has room, and is skipped rather than waited for.
    await context.outbound.tryNow({
      target: { teamId: place.teamId, method: 'assistant.threads.setStatus', channel: place.channel },
      run: () =>
        place.client.assistant.threads.setStatus({ channel_id: place.channel, thread_ts: threadTs, status }),
    });
  } catch (error) {
    const code = slackErrorCodeOf(error);
    if (isMissingFeatureError(code) || code === 'invalid_arguments') {
      context.features.markUnavailable(place.teamId, 'threadStatus');
    }
    context.logger.debug({ err: error }, 'slack: could not set the thread status');
  }
}

/**
 * How long a reply may take to show its first text before "is thinking…" goes up. A model that
 * answers sooner needs no status (Slack clears it as the reply arrives anyway): that saves a call of
 * the thread's budget and keeps its round trip off the way to the model.
 */
export const thinkingStatusDelayMs = 1_000;

/**
 * Shows "is thinking…" after the context's `thinkingStatusDelayMs` unless the reply has posted by
 * then; never waits for it.
 */
export function showThinkingStatusUnlessAnswered({
  place,
  context,
  hasPosted,
}: {
  place: ReplyPlace;
  context: SlackDeliveryContext;
  hasPosted: () => boolean;
}): void {
  const timer = setTimeout(() => {
    if (!hasPosted()) void showThinkingStatus(place, context);
  }, context.thinkingStatusDelayMs);
  timer.unref();
}
