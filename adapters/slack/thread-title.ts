import { titleConversation } from '../../commands/conversation-title.ts';
import type { ReplyOutcome } from '../../src/conversation/engine.ts';
import type { ConversationKey } from '../../src/conversation/turn.ts';
import type { SlackAdapterContext } from './adapter-context.ts';
import type { ReplyPlace } from './reply-place.ts';
import { slackErrorCodeOf } from './slack-errors.ts';
import { isMissingFeatureError } from './workspace-features.ts';

/**
 * Names a thread of the app's DM after its first exchange, as the agent view lists its threads by
 * title (`assistant.threads.setTitle`: channel_id, thread_ts and title,
 * docs.slack.dev/reference/methods/assistant.threads.setTitle). Only in the DM: a channel thread has
 * no title to set. The title comes from TITLE_MODEL through the shared title writer, paid for from
 * the asker's budgets (or the question's first words when they cannot pay), and never fails; a
 * refused call is logged and the thread keeps Slack's own title.
 */
export async function titleThreadAfterFirstExchange({
  adapter,
  place,
  conversationKey,
  outcome,
  requester,
}: {
  adapter: SlackAdapterContext;
  place: ReplyPlace;
  conversationKey: ConversationKey;
  outcome: ReplyOutcome;
  /** Who asked: the title is held on their budgets. */
  requester: { readonly id: string; readonly roleIds: readonly string[] };
}): Promise<void> {
  const { features, logger } = adapter.delivery;
  if (place.channelType !== 'im' || place.threadTs === undefined || outcome.status !== 'complete') return;
  if (!features.isAvailable(place.teamId, 'threadStatus')) return;
  const history = await adapter.services.history.load(conversationKey).catch(() => []);
  const [question, answer] = history;
  if (history.length !== 2 || question?.role !== 'user' || answer?.role !== 'assistant') return;
  const { title } = await titleConversation({
    services: adapter.services,
    requester,
    conversationKey,
    exchange: { question: question.text, answer: answer.text },
  });
  try {
    await place.client.assistant.threads.setTitle({
      channel_id: place.channel,
      thread_ts: place.threadTs,
      title,
    });
  } catch (error) {
    if (isMissingFeatureError(slackErrorCodeOf(error)))
      features.markUnavailable(place.teamId, 'threadStatus');
    logger.debug({ err: error }, 'slack: could not set the title of a thread');
  }
}
