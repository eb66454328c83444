import { arrayArgument, stringArgument } from './api-arguments.ts';
import type { ApiMethod, FakeSlackState } from './fake-slack-state.ts';
import { SlackApiError } from './slack-api-error.ts';
import { randomSlackId } from './slack-ids.ts';

/**
 * Which AI experience the app was made with: `agent` (the manifest's `agent_view`) or the legacy
 * `assistant` (`assistant_view`). Slack treats a few calls differently between the two
 * (docs.slack.dev/ai/migrating-to-agent-messaging).
 */
export type AgentExperience = 'agent' | 'assistant';

/** Suggested prompts as a person sees them above the composer. */
export interface SuggestedPrompts {
  channel: string;
  /** The assistant thread they were set for; undefined in the agent experience (the whole DM). */
  threadTs: string | undefined;
  title: string | undefined;
  prompts: Array<{ title: string; message: string }>;
  atMs: number;
}

/** A Home tab the app published for one person with `views.publish`. */
export interface PublishedHomeView {
  id: string;
  userId: string;
  view: Record<string, unknown>;
  atMs: number;
}

/** What the agent-view methods and the Home tab keep. */
export interface AgentViewState {
  experience: AgentExperience;
  /** The App Home's Home tab (manifest `app_home.home_tab_enabled`). */
  isHomeTabEnabled: boolean;
  /** Every call that changed the prompts, oldest first (silently dropped calls are not here). */
  readonly suggestedPrompts: SuggestedPrompts[];
  /** Thread titles by `channel thread_ts`. */
  readonly threadTitles: Map<string, string>;
  /** The current Home tab of each person, by user id. */
  readonly homeViews: Map<string, PublishedHomeView>;
}

export function createAgentViewState(options: {
  experience?: AgentExperience;
  isHomeTabEnabled?: boolean;
}): AgentViewState {
  return {
    experience: options.experience ?? 'agent',
    isHomeTabEnabled: options.isHomeTabEnabled ?? true,
    suggestedPrompts: [],
    threadTitles: new Map(),
    homeViews: new Map(),
  };
}

export function resetAgentViewState(agent: AgentViewState): void {
  agent.suggestedPrompts.length = 0;
  agent.threadTitles.clear();
  agent.homeViews.clear();
}

/** docs.slack.dev/reference/methods/assistant.threads.setSuggestedPrompts, "Usage info". */
const maxSuggestedPrompts = 4;

// assistant.threads.setSuggestedPrompts (docs.slack.dev/reference/methods/assistant.threads.setSuggestedPrompts):
// channel_id and prompts are required; "up to four suggested prompts", each with a title and a
// message; thread_ts is optional and "should only be used in the legacy assistant messaging
// experience. Including it in a call for an agent app will cause the call to silently fail."
const setSuggestedPrompts: ApiMethod = (state, args) => {
  const channel = stringArgument(args, 'channel_id');
  if (channel === undefined) throw new SlackApiError('channel_not_found');
  const prompts = arrayArgument(args, 'prompts');
  if (prompts === undefined || prompts.length === 0 || prompts.length > maxSuggestedPrompts) {
    throw new SlackApiError('invalid_arguments');
  }
  const checked = prompts.map((prompt) => {
    const { title, message } = (prompt ?? {}) as { title?: unknown; message?: unknown };
    if (typeof title !== 'string' || title === '' || typeof message !== 'string' || message === '') {
      throw new SlackApiError('invalid_arguments');
    }
    return { title, message };
  });
  const threadTs = stringArgument(args, 'thread_ts');
  if (threadTs !== undefined && state.agent.experience === 'agent') return {};
  state.agent.suggestedPrompts.push({
    channel,
    threadTs,
    title: stringArgument(args, 'title'),
    prompts: checked,
    atMs: Date.now(),
  });
  return {};
};

// assistant.threads.setTitle (docs.slack.dev/reference/methods/assistant.threads.setTitle):
// channel_id, thread_ts and title are all required.
const setTitle: ApiMethod = (state, args) => {
  const channel = stringArgument(args, 'channel_id');
  if (channel === undefined) throw new SlackApiError('channel_not_found');
  const threadTs = stringArgument(args, 'thread_ts');
  if (threadTs === undefined) throw new SlackApiError('invalid_thread_ts');
  const title = stringArgument(args, 'title');
  if (title === undefined || title === '') throw new SlackApiError('invalid_arguments');
  state.agent.threadTitles.set(`${channel} ${threadTs}`, title);
  return {};
};

// views.publish (docs.slack.dev/reference/methods/views.publish): user_id and view are required;
// `not_enabled` "if a home view is published but the Home tab isn't enabled for the app";
// a view holds up to 100 blocks (docs.slack.dev/reference/views), private_metadata up to 3,000
// characters and callback_id up to 255.
const viewsPublish: ApiMethod = (state, args) => {
  const userId = stringArgument(args, 'user_id');
  if (userId === undefined) {
    throw new SlackApiError('invalid_arguments', { response_metadata: { messages: ['invalid `user_id`'] } });
  }
  const view = args.view as Record<string, unknown> | undefined;
  if (typeof view !== 'object' || view === null || Array.isArray(view)) {
    throw new SlackApiError('invalid_arguments');
  }
  if (view.type === 'home' && !state.agent.isHomeTabEnabled) throw new SlackApiError('not_enabled');
  const blocks = view.blocks;
  const problems: string[] = [];
  if (view.type !== 'home') problems.push('[ERROR] must be a home view [json-pointer:/view/type]');
  if (!Array.isArray(blocks) || blocks.length > 100)
    problems.push('[ERROR] must have up to 100 blocks [json-pointer:/view/blocks]');
  if (typeof view.private_metadata === 'string' && view.private_metadata.length > 3_000)
    problems.push('[ERROR] private_metadata too long');
  if (typeof view.callback_id === 'string' && view.callback_id.length > 255)
    problems.push('[ERROR] callback_id too long');
  if (problems.length > 0)
    throw new SlackApiError('invalid_arguments', { response_metadata: { messages: problems } });
  state.directory.user(userId);
  const published: PublishedHomeView = {
    id: state.agent.homeViews.get(userId)?.id ?? randomSlackId('V'),
    userId,
    view,
    atMs: Date.now(),
  };
  state.agent.homeViews.set(userId, published);
  return {
    view: { id: published.id, team_id: state.workspace.teamId, app_id: state.workspace.appId, ...view },
  };
};

/** The AI-app methods besides setStatus and the streams, and the Home tab. */
export const agentViewMethods: Record<string, ApiMethod> = {
  'assistant.threads.setSuggestedPrompts': setSuggestedPrompts,
  'assistant.threads.setTitle': setTitle,
  'views.publish': viewsPublish,
};

/**
 * A person pressed Slack's own stop control while the app was working in a thread
 * (docs.slack.dev/reference/events/agent_session_stopped): Slack stops the app's in-progress
 * streaming messages there and lists them in `streaming_message_ts` (empty when none was
 * streaming). It does not change the session's status: the app must still end the stream with
 * chat.stopStream (or set a status), so a stopped stream accepts chat.stopStream but no more appends.
 */
export function stopAgentSession(
  state: FakeSlackState,
  options: { channel: string; threadTs: string },
): string[] {
  const stopped: string[] = [];
  for (const stream of state.streams) {
    if (stream.channel !== options.channel || stream.threadTs !== options.threadTs) continue;
    if (stream.state !== 'streaming') continue;
    stream.isStoppedByUser = true;
    stopped.push(stream.ts);
  }
  state.notifyChange();
  return stopped;
}
