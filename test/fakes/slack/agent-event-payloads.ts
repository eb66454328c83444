import type { SlackEvent } from './event-payloads.ts';
import { defaultPersonId } from './event-payloads.ts';
import { nextMessageTs } from './slack-ids.ts';
import { defaultWorkspace } from './workspace.ts';

/** Where an AI-app event happens: the person's DM with the app, a thread in it, what they look at. */
export interface AgentEventOptions {
  /** The DM with the app (ids of DMs start with D). */
  channel: string;
  /** The person. Default `U0PERSON01`. */
  user?: string;
  /** The channel the person is viewing beside the app, if any. */
  viewedChannel?: string;
}

function assistantThread(options: AgentEventOptions & { threadTs: string }): Record<string, unknown> {
  return {
    user_id: options.user ?? defaultPersonId,
    context: {
      ...(options.viewedChannel === undefined ? {} : { channel_id: options.viewedChannel }),
      team_id: defaultWorkspace.teamId,
      enterprise_id: null,
    },
    channel_id: options.channel,
    thread_ts: options.threadTs,
  };
}

/**
 * The legacy assistant experience: a person opened a new assistant thread
 * (docs.slack.dev/reference/events/assistant_thread_started), with the channel they were viewing.
 */
export function assistantThreadStarted(options: AgentEventOptions & { threadTs: string }): SlackEvent {
  return {
    type: 'assistant_thread_started',
    assistant_thread: assistantThread(options),
    event_ts: nextMessageTs(),
  };
}

/**
 * The legacy assistant experience: the person opened another channel while the assistant thread
 * was visible (docs.slack.dev/reference/events/assistant_thread_context_changed).
 */
export function assistantThreadContextChanged(options: AgentEventOptions & { threadTs: string }): SlackEvent {
  return {
    type: 'assistant_thread_context_changed',
    assistant_thread: assistantThread(options),
    event_ts: nextMessageTs(),
  };
}

/**
 * A person opened the app's Home or Messages tab (docs.slack.dev/reference/events/app_home_opened).
 * In the agent experience the Messages tab replaces assistant_thread_started
 * (docs.slack.dev/ai/migrating-to-agent-messaging).
 */
export function appHomeOpened(options: AgentEventOptions & { tab: 'home' | 'messages' }): SlackEvent {
  return {
    type: 'app_home_opened',
    user: options.user ?? defaultPersonId,
    channel: options.channel,
    tab: options.tab,
    ...(options.viewedChannel === undefined
      ? {}
      : { context: { entities: [{ type: 'slack#/types/channel_id', value: options.viewedChannel }] } }),
    event_ts: nextMessageTs(),
  };
}

/**
 * The agent experience: what the person views beside the app changed
 * (docs.slack.dev/reference/events/app_context_changed; entities by relevance, `{}` when none;
 * `channel` and `user` as @slack/types' AppContextChangedEvent has them).
 */
export function appContextChanged(options: AgentEventOptions): SlackEvent {
  return {
    type: 'app_context_changed',
    channel: options.channel,
    user: options.user ?? defaultPersonId,
    context:
      options.viewedChannel === undefined
        ? {}
        : {
            entities: [
              {
                type: 'slack#/types/channel_id',
                value: options.viewedChannel,
                team_id: defaultWorkspace.teamId,
              },
            ],
          },
    event_ts: nextMessageTs(),
  };
}

/**
 * A person pressed Slack's stop control on the app's work in a thread
 * (docs.slack.dev/reference/events/agent_session_stopped); `streamingMessageTs` from
 * `fake.stopAgentSession`, empty when nothing was streaming.
 */
export function agentSessionStopped(options: {
  channel: string;
  threadTs: string;
  streamingMessageTs: string[];
  user?: string;
}): SlackEvent {
  return {
    type: 'agent_session_stopped',
    channel: options.channel,
    user: options.user ?? defaultPersonId,
    thread_ts: options.threadTs,
    streaming_message_ts: options.streamingMessageTs,
    event_ts: nextMessageTs(),
  };
}
