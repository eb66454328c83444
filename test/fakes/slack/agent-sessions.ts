import { stringArgument } from './api-arguments.ts';
import type { ApiMethod } from './fake-slack-state.ts';
import { SlackApiError } from './slack-api-error.ts';

/**
 * Agent sessions (docs.slack.dev/ai/agent-sessions): a thread where a person works with an app
 * declared as an agent shows the session's status ("processing", "active", "suspended" or
 * "closed"), its title, and a stop button while it is processing. "Only apps declared as agents in
 * the app settings can create sessions"; sessions are "thread-based and scoped to a single thread in
 * a conversation, like a channel or DM". The fake has no session channels (Slack Code's code
 * channels), so every session here is a thread's.
 */
export type AgentSessionStatus = 'active' | 'processing' | 'suspended' | 'closed';

/** One session as a person sees it, with every status it has had, oldest first. */
export interface AgentSession {
  readonly channel: string;
  readonly threadTs: string;
  status: AgentSessionStatus;
  title: string | undefined;
  readonly initiatorUserId: string | undefined;
  readonly statuses: AgentSessionStatus[];
}

/** Sessions by `channel thread_ts`, and whether the app is declared an agent at all. */
export interface AgentSessionsState {
  isDeclaredAgent: boolean;
  readonly sessions: Map<string, AgentSession>;
}

export function createAgentSessionsState(options: { isDeclaredAgent?: boolean }): AgentSessionsState {
  return { isDeclaredAgent: options.isDeclaredAgent ?? false, sessions: new Map() };
}

// agents.sessions.setStatus, "Arguments" (docs.slack.dev/reference/methods/agents.sessions.setStatus):
// status "Acceptable values: active processing suspended closed".
const statuses = new Set<string>(['active', 'processing', 'suspended', 'closed']);
// agents.sessions.setStatus: title "max 200 characters"; agents.sessions.rename: title "1-200 characters".
const maxTitleCharacters = 200;

/**
 * Slack's errors table for these methods is not in the stored copy of their pages; for an app that
 * is not declared an agent the fake answers `not_allowed`, the code Slack uses for a method an app
 * may not call, which parley reads like any other "feature missing" answer (workspace-features.ts).
 */
function assertDeclaredAgent(sessions: AgentSessionsState): void {
  if (!sessions.isDeclaredAgent) throw new SlackApiError('not_allowed');
}

/**
 * The thread a call names: channel_id ("ID of the channel containing the agent session") and
 * thread_ts ("Required for thread-based sessions in regular channels and DMs").
 */
function threadOf(args: Record<string, unknown>): { channel: string; threadTs: string } {
  const channel = stringArgument(args, 'channel_id');
  if (channel === undefined) throw new SlackApiError('channel_not_found');
  const threadTs = stringArgument(args, 'thread_ts');
  if (threadTs === undefined) throw new SlackApiError('invalid_arguments');
  return { channel, threadTs };
}

// agents.sessions.setStatus (docs.slack.dev/reference/methods/agents.sessions.setStatus): "Set an
// agent session's lifecycle status, creating the session if needed"; title and initiator_user_id
// are "Only used when creating a new session; ignored if the session already exists. To rename an
// existing session, use agents.sessions.rename." Bot token with chat:write; Tier 3 (rate-limiter.ts).
const setStatus: ApiMethod = (state, args) => {
  assertDeclaredAgent(state.agentSessions);
  const status = stringArgument(args, 'status');
  if (status === undefined || !statuses.has(status)) throw new SlackApiError('invalid_arguments');
  const { channel, threadTs } = threadOf(args);
  const title = stringArgument(args, 'title');
  if (title !== undefined && title.length > maxTitleCharacters) throw new SlackApiError('invalid_arguments');
  const key = `${channel} ${threadTs}`;
  const checked = status as AgentSessionStatus;
  const existing = state.agentSessions.sessions.get(key);
  if (existing === undefined) {
    state.agentSessions.sessions.set(key, {
      channel,
      threadTs,
      status: checked,
      title,
      initiatorUserId: stringArgument(args, 'initiator_user_id'),
      statuses: [checked],
    });
  } else {
    existing.status = checked;
    existing.statuses.push(checked);
  }
  const session = state.agentSessions.sessions.get(key);
  return { status: checked, ...(session?.title === undefined ? {} : { title: session.title }) };
};

// agents.sessions.rename (docs.slack.dev/reference/methods/agents.sessions.rename): channel_id and
// title ("1-200 characters") required, thread_ts for a thread's session; "Typical error response":
// `session_not_found`. Bot token with chat:write; Tier 3.
const rename: ApiMethod = (state, args) => {
  assertDeclaredAgent(state.agentSessions);
  const { channel, threadTs } = threadOf(args);
  const title = stringArgument(args, 'title');
  if (title === undefined || title === '' || title.length > maxTitleCharacters) {
    throw new SlackApiError('invalid_arguments');
  }
  const session = state.agentSessions.sessions.get(`${channel} ${threadTs}`);
  if (session === undefined) throw new SlackApiError('session_not_found');
  session.title = title;
  return { title };
};

export const agentSessionMethods: Record<string, ApiMethod> = {
  'agents.sessions.setStatus': setStatus,
  'agents.sessions.rename': rename,
};
