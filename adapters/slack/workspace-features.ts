/**
 * Features an app has only with Slack's Agents & AI Apps setting (and its `assistant:write` scope):
 * native streaming and the status line under a thread; and, for an app declared as an agent, agent
 * sessions (agent-sessions.ts).
 */
export type OptionalFeature = 'nativeStreaming' | 'threadStatus' | 'agentSessions';

/**
 * What each workspace has shown it lacks. A feature is tried until Slack refuses it once, then not
 * again in that workspace until the process restarts, so an app without the AI feature costs one
 * refused call per workspace instead of one a reply.
 */
export interface WorkspaceFeatures {
  /** `scope` is a workspace id, or a narrower key within one (see stream-refusals.ts). */
  isAvailable(scope: string, feature: OptionalFeature): boolean;
  markUnavailable(scope: string, feature: OptionalFeature): void;
}

/** The Web API errors that mean "this app or workspace does not have the feature". */
const missingFeatureErrors = new Set([
  'not_allowed',
  'unknown_method',
  'method_deprecated',
  'missing_scope',
  'not_allowed_token_type',
  'feature_not_enabled',
  'team_not_allowed',
]);

/** True when a Slack error code says the feature is missing rather than that the call failed. */
export function isMissingFeatureError(errorCode: string | undefined): boolean {
  return errorCode !== undefined && missingFeatureErrors.has(errorCode);
}

export function createWorkspaceFeatures(): WorkspaceFeatures {
  const unavailable = new Set<string>();
  return {
    isAvailable: (scope, feature) => !unavailable.has(`${scope} ${feature}`),
    markUnavailable(scope, feature) {
      unavailable.add(`${scope} ${feature}`);
    },
  };
}
