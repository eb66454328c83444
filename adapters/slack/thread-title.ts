import { titleConversation } from '../../commands/conversation-title.ts';
import type { ReplyOutcome } from '../../src/conversation/engine.ts';
import type { ConversationKey } from '../../src/conversation/turn.ts';
import type { SlackAdapterContext } from './adapter-context.ts';
import { agentSessionStatusOf, renameAgentSession } from './agent-sessions.ts';
import type { ReplyPlace, SlackDeliveryContext } from './reply-place.ts';
import { slackErrorCodeOf } from './slack-errors.ts';
import { isMissingFeatureError } from './workspace-features.ts';

/**
 * Names a thread after its first exchange. Where parley holds an agent session in the thread (in a
 * channel or the DM), with agents.sessions.rename ("a title for recall", docs.slack.dev/ai/agent-sessions);
 * else, in the app's DM only, as the agent view lists its threads by title
 * (`assistant.threads.setTitle`: channel_id, thread_ts and title,
 * docs.slack.dev/reference/methods/assistant.threads.setTitle): a channel thread has no title there. The title comes from TITLE_MODEL through the shared title writer, paid for from
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
  if (outcome.status !== 'complete' || !mayNameThread(adapter.delivery, place)) return;
  const history = await adapter.services.history.load(conversationKey).catch(() => []);
  const [question, answer] = history;
  if (history.length !== 2 || question?.role !== 'user' || answer?.role !== 'assistant') return;
  const { title } = await titleConversation({
    services: adapter.services,
    requester,
    conversationKey,
    exchange: { question: question.text, answer: answer.text },
  });
  await nameThread({ place, context: adapter.delivery, title });
}

/** Whether the thread has a title Slack shows: an agent session parley holds, or a thread of the DM. */
export function mayNameThread(context: SlackDeliveryContext, place: ReplyPlace): boolean {
  if (place.threadTs === undefined) return false;
  if (agentSessionStatusOf(context, place) !== undefined) return true;
  return place.channelType === 'im' && context.features.isAvailable(place.teamId, 'threadStatus');
}

/**
 * Names the thread: its agent session (agents.sessions.rename) where parley holds one, else, in the
 * app's DM, its agent-view title (assistant.threads.setTitle). Answers whether Slack took it;
 * never throws.
 */
export async function nameThread({
  place,
  context,
  title,
}: {
  place: ReplyPlace;
  context: SlackDeliveryContext;
  title: string;
}): Promise<'named' | 'not-available'> {
  const { threadTs } = place;
  if (threadTs === undefined) return 'not-available';
  if (agentSessionStatusOf(context, place) !== undefined) {
    if ((await renameAgentSession({ place, context, title })) === 'renamed') return 'named';
  }
  if (place.channelType !== 'im' || !context.features.isAvailable(place.teamId, 'threadStatus')) {
    return 'not-available';
  }
  try {
    await place.client.assistant.threads.setTitle({ channel_id: place.channel, thread_ts: threadTs, title });
    return 'named';
  } catch (error) {
    if (isMissingFeatureError(slackErrorCodeOf(error)))
      context.features.markUnavailable(place.teamId, 'threadStatus');
    context.logger.debug({ err: error }, 'slack: could not set the title of a thread');
    return 'not-available';
  }
}
