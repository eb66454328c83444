import { hasAcceptedAgentSessions, setAgentSessionStatus } from './agent-sessions.ts';
import type { ReplyPlace, SlackDeliveryContext } from './reply-place.ts';
import { showThinkingStatus, showThinkingStatusUnlessAnswered } from './thread-status.ts';

/** The agent session a reply began, or is about to begin. */
export interface ReplySessionStart {
  /** `set` once the thread's session is processing; `not-available` when it never will be. */
  readonly started: Promise<'set' | 'not-available'>;
  /**
   * The reply has ended: a session start still waiting for its moment is not made; one already
   * asked for resolves with Slack's answer.
   */
  stopWaiting(): void;
}

/**
 * Starts the thread's agent session as a reply begins (processing: Slack's status and stop button),
 * or else shows "is thinking…".
 *
 * Where Slack has already taken a session call in the workspace, or SLACK_AGENT_SESSIONS=on, the
 * session starts at once. In `auto` before that, parley does not know whether the app is an agent,
 * and asking costs a call that an app which is not one has refused (agents.sessions.setStatus,
 * `not_allowed`): so it asks at the moment "is thinking…" would go up (`thinkingStatusDelayMs`),
 * only when the reply has shown nothing by then. A quick reply in a workspace without sessions costs
 * no call (issue 24: at most 8 Web API calls a reply); an agent app's sessions start with the first
 * reply that takes longer, and then with every reply.
 */
export function startReplySession({
  place,
  context,
  hasPosted,
}: {
  place: ReplyPlace;
  context: SlackDeliveryContext;
  hasPosted: () => boolean;
}): ReplySessionStart {
  const isKnownAgent = context.agentSessions.mode === 'on' || hasAcceptedAgentSessions(context, place);
  if (isKnownAgent) {
    const started = setAgentSessionStatus({ place, context, status: 'processing' });
    void started.then((result) => {
      if (result === 'not-available') showThinkingStatusUnlessAnswered({ place, context, hasPosted });
    });
    return { started, stopWaiting: () => undefined };
  }
  let resolveStarted: (result: 'set' | 'not-available') => void = () => undefined;
  const started = new Promise<'set' | 'not-available'>((resolve) => {
    resolveStarted = resolve;
  });
  // Once the question is on its way, the reply's end waits for its answer (a session it started
  // must be set active again, not left processing with its stop button).
  let isAsked = false;
  const timer = setTimeout(async () => {
    isAsked = true;
    if (hasPosted()) {
      resolveStarted('not-available');
      return;
    }
    const result = await setAgentSessionStatus({ place, context, status: 'processing' });
    if (result === 'not-available' && !hasPosted()) await showThinkingStatus(place, context);
    resolveStarted(result);
  }, context.thinkingStatusDelayMs);
  timer.unref();
  return {
    started,
    stopWaiting() {
      if (isAsked) return;
      clearTimeout(timer);
      resolveStarted('not-available');
    },
  };
}
