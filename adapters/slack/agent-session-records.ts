/**
 * Slack's agent sessions (docs.slack.dev/ai/agent-sessions): in a thread with an app "declared as
 * an agent in the app settings", the session shows a status ("processing", "active", "suspended" or
 * "closed"), a title, and a stop button while it is processing. They succeed
 * `assistant.threads.setStatus` / `setTitle` (slackapi/java-slack-sdk PR #1633), which stay for apps
 * that are not agents (thread-status.ts, thread-title.ts).
 *
 * SLACK_AGENT_SESSIONS chooses: `auto` tries them and, when a workspace answers that the app may
 * not (`not_allowed`, `unknown_method`, `missing_scope` …), uses the assistant calls there until the
 * process restarts, as stream-refusals.ts does for streams; `on` always tries them (a refusal falls
 * back for that reply and is logged as a warning); `off` never calls them.
 */
export type AgentSessionsMode = 'auto' | 'on' | 'off';

/** agents.sessions.setStatus, `status`: "Acceptable values: active processing suspended closed". */
export type AgentSessionStatus = 'processing' | 'active' | 'suspended' | 'closed';

/**
 * The mode, and the status parley last set in each thread's session, by `team channel thread_ts`
 * (the newest `maxRememberedSessions`; a session parley forgot is simply set again).
 */
export interface AgentSessions {
  readonly mode: AgentSessionsMode;
  readonly statuses: Map<string, AgentSessionStatus>;
  /** Workspaces where Slack has taken a session call: the app is an agent there. */
  readonly acceptingTeams: Set<string>;
}

export function createAgentSessions(mode: AgentSessionsMode): AgentSessions {
  return { mode, statuses: new Map(), acceptingTeams: new Set() };
}
