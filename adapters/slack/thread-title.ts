import { titleConversation } from '../../commands/conversation-title.ts';
import type { ReplyOutcome } from '../../src/conversation/engine.ts';
import type { ConversationKey } from '../../src/conversation/turn.ts';
import type { SlackAdapterContext } from './adapter-context.ts';
import { agentSessionStatusOf, renameAgentSession } from './agent-sessions.ts';
import type { ReplyPlace } from './reply-place.ts';
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
  const { features, logger } = adapter.delivery;
  if (place.threadTs === undefined || outcome.status !== 'complete') return;
  const hasSession = agentSessionStatusOf(adapter.delivery, place) !== undefined;
  if (!hasSession && (place.channelType !== 'im' || !features.isAvailable(place.teamId, 'threadStatus')))
    return;
  const history = await adapter.services.history.load(conversationKey).catch(() => []);
  const [question, answer] = history;
  if (history.length !== 2 || question?.role !== 'user' || answer?.role !== 'assistant') return;
  const { title } = await titleConversation({
    services: adapter.services,
    requester,
    conversationKey,
    exchange: { question: question.text, answer: answer.text },
  });
  if (hasSession) {
    const renamed = await renameAgentSession({ place, context: adapter.delivery, title });
    if (renamed === 'renamed' || place.channelType !== 'im') return;
  }
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
