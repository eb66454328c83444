import type { App, webApi } from '@slack/bolt';
import type { SlackAdapterContext } from './adapter-context.ts';
import { suggestedPromptsFor } from './agent-prompts.ts';
import { slackErrorCodeOf } from './slack-errors.ts';
import { isMissingFeatureError } from './workspace-features.ts';

/** The part of an AI-app event that says what the person is looking at. */
interface ViewedContext {
  channel_id?: string;
  entities?: Array<{ type?: string; value?: unknown }>;
}

interface AssistantThreadEvent {
  assistant_thread?: { channel_id?: string; thread_ts?: string; context?: ViewedContext };
}

interface AgentContextEvent {
  channel?: string;
  tab?: string;
  context?: ViewedContext;
}

/**
 * Suggested prompts that follow the person around Slack, in both AI experiences:
 * - the agent experience (manifest `agent_view`): `app_home_opened` on the Messages tab, which
 *   "replaces the assistant_thread_started event", and `app_context_changed`; prompts are set for
 *   the whole DM, without `thread_ts`, which in an agent app "will cause the call to silently fail"
 *   (docs.slack.dev/ai/migrating-to-agent-messaging, .../methods/assistant.threads.setSuggestedPrompts);
 * - the legacy assistant experience (`assistant_view`): `assistant_thread_started` and
 *   `assistant_thread_context_changed`, per thread (docs.slack.dev/reference/events/assistant_thread_started).
 * A channel in view turns the prompts to it ("Summarize this channel", "What did I miss?").
 */
export function registerAgentViewEvents({ app, adapter }: { app: App; adapter: SlackAdapterContext }): void {
  app.event('app_home_opened', async ({ event, context, client }) => {
    const opened = event as AgentContextEvent;
    if (opened.tab !== 'messages' || opened.channel === undefined) return;
    await setPrompts({
      adapter,
      client,
      teamId: context.teamId,
      channel: opened.channel,
      viewed: opened.context,
    });
  });
  app.event('app_context_changed' as 'app_home_opened', async ({ event, context, client }) => {
    const changed = event as AgentContextEvent;
    if (changed.channel === undefined) return;
    await setPrompts({
      adapter,
      client,
      teamId: context.teamId,
      channel: changed.channel,
      viewed: changed.context,
    });
  });
  for (const name of ['assistant_thread_started', 'assistant_thread_context_changed'] as const) {
    app.event(name, async ({ event, context, client }) => {
      const thread = (event as AssistantThreadEvent).assistant_thread;
      if (thread?.channel_id === undefined || thread.thread_ts === undefined) return;
      await setPrompts({
        adapter,
        client,
        teamId: context.teamId,
        channel: thread.channel_id,
        threadTs: thread.thread_ts,
        viewed: thread.context,
      });
    });
  }
}

/** The channel in view: the legacy `channel_id`, or the first (most relevant) channel entity. */
export function viewedChannelOf(viewed: ViewedContext | undefined): string | undefined {
  if (viewed === undefined) return undefined;
  if (typeof viewed.channel_id === 'string') return viewed.channel_id;
  const entity = viewed.entities?.find((candidate) => candidate.type === 'slack#/types/channel_id');
  return typeof entity?.value === 'string' ? entity.value : undefined;
}

// Never throws: prompts are a convenience. A workspace without the AI feature is asked once.
async function setPrompts({
  adapter,
  client,
  teamId = 'unknown-team',
  channel,
  threadTs,
  viewed,
}: {
  adapter: SlackAdapterContext;
  client: webApi.WebClient;
  teamId: string | undefined;
  channel: string;
  threadTs?: string;
  viewed: ViewedContext | undefined;
}): Promise<void> {
  const { features, logger } = adapter.delivery;
  if (!features.isAvailable(teamId, 'threadStatus')) return;
  const { title, prompts } = suggestedPromptsFor(viewedChannelOf(viewed));
  try {
    await client.assistant.threads.setSuggestedPrompts({
      channel_id: channel,
      ...(threadTs === undefined ? {} : { thread_ts: threadTs }),
      title,
      prompts,
    });
  } catch (error) {
    if (isMissingFeatureError(slackErrorCodeOf(error))) features.markUnavailable(teamId, 'threadStatus');
    logger.debug({ err: error, channel }, 'slack: could not set the suggested prompts');
  }
}
