import type { AgentSessionStatus, AgentSessions } from './agent-session-records.ts';
import type { ReplyPlace, SlackDeliveryContext } from './reply-place.ts';
import { slackErrorCodeOf } from './slack-errors.ts';
import { isMissingFeatureError } from './workspace-features.ts';

/** Whether Slack has taken a session call in the place's workspace since the process started. */
export function hasAcceptedAgentSessions(context: SlackDeliveryContext, place: ReplyPlace): boolean {
  return context.agentSessions.acceptingTeams.has(place.teamId);
}

const maxRememberedSessions = 10_000;

// agents.sessions.setStatus: title "max 200 characters"; agents.sessions.rename: "1-200 characters".
const maxTitleCharacters = 200;

function keyOf(place: ReplyPlace, threadTs: string): string {
  return `${place.teamId} ${place.channel} ${threadTs}`;
}

/** Whether parley may try a session in this place's workspace. */
function mayTry(context: SlackDeliveryContext, place: ReplyPlace): boolean {
  const { mode } = context.agentSessions;
  if (mode === 'off') return false;
  return mode === 'on' || context.features.isAvailable(place.teamId, 'agentSessions');
}

/** The status parley last set for the thread's session; undefined when it has none from parley. */
export function agentSessionStatusOf(
  context: SlackDeliveryContext,
  place: ReplyPlace,
): AgentSessionStatus | undefined {
  return place.threadTs === undefined
    ? undefined
    : context.agentSessions.statuses.get(keyOf(place, place.threadTs));
}

/** Reads a refusal: in `auto`, a "feature missing" answer marks the workspace as without sessions. */
function noteRefusal(context: SlackDeliveryContext, place: ReplyPlace, error: unknown, method: string): void {
  const code = slackErrorCodeOf(error);
  const { mode } = context.agentSessions;
  if (mode === 'auto' && isMissingFeatureError(code)) {
    context.features.markUnavailable(place.teamId, 'agentSessions');
    context.logger.info(
      { teamId: place.teamId, error: code },
      'slack: this app is not an agent in this workspace; the assistant thread calls stand in for agent sessions',
    );
    return;
  }
  context.logger[mode === 'on' ? 'warn' : 'debug']({ err: error, method }, `slack: ${method} failed`);
}

/**
 * Sets the thread's session status (creating the session on its first call, with `initiator_user_id`,
 * "Only used when creating a new session"). `processing` is a courtesy and is skipped when the
 * method's budget is spent; any later status waits its turn, since a session left processing keeps
 * its stop button. Answers whether Slack took it; never throws.
 */
export async function setAgentSessionStatus({
  place,
  context,
  status,
}: {
  place: ReplyPlace;
  context: SlackDeliveryContext;
  status: AgentSessionStatus;
}): Promise<'set' | 'not-available'> {
  const { threadTs } = place;
  if (threadTs === undefined || !mayTry(context, place)) return 'not-available';
  const key = keyOf(place, threadTs);
  // Only a session parley began is moved on: another status alone would create one.
  if (status !== 'processing' && !context.agentSessions.statuses.has(key)) return 'not-available';
  if (context.agentSessions.statuses.get(key) === status) return 'set';
  const call = () =>
    place.client.agents.sessions.setStatus({
      channel_id: place.channel,
      thread_ts: threadTs,
      status,
      ...(place.recipientUserId === undefined ? {} : { initiator_user_id: place.recipientUserId }),
    });
  const target = { teamId: place.teamId, method: 'agents.sessions.setStatus', channel: place.channel };
  try {
    if (status === 'processing') {
      const done = await context.outbound.tryNow({ target, run: call });
      if (done === undefined) return 'not-available';
    } else {
      await context.outbound.schedule({ priority: 'final-write', target, run: call });
    }
  } catch (error) {
    noteRefusal(context, place, error, 'agents.sessions.setStatus');
    return 'not-available';
  }
  remember(context.agentSessions, key, status);
  context.agentSessions.acceptingTeams.add(place.teamId);
  return 'set';
}

function remember(sessions: AgentSessions, key: string, status: AgentSessionStatus): void {
  sessions.statuses.delete(key);
  if (status !== 'closed') sessions.statuses.set(key, status);
  const oldest = sessions.statuses.keys().next();
  if (sessions.statuses.size > maxRememberedSessions && oldest.done !== true)
    sessions.statuses.delete(oldest.value);
}

/** Names the thread's session (agents.sessions.rename); answers whether Slack took it; never throws. */
export async function renameAgentSession({
  place,
  context,
  title,
}: {
  place: ReplyPlace;
  context: SlackDeliveryContext;
  title: string;
}): Promise<'renamed' | 'not-available'> {
  const { threadTs } = place;
  const clipped = title.trim().slice(0, maxTitleCharacters);
  if (threadTs === undefined || clipped === '' || !mayTry(context, place)) return 'not-available';
  // agents.sessions.rename answers `session_not_found` for a thread without one.
  if (!context.agentSessions.statuses.has(keyOf(place, threadTs))) return 'not-available';
  try {
    await context.outbound.schedule({
      priority: 'edit',
      target: { teamId: place.teamId, method: 'agents.sessions.rename', channel: place.channel },
      run: () =>
        place.client.agents.sessions.rename({
          channel_id: place.channel,
          thread_ts: threadTs,
          title: clipped,
        }),
    });
    return 'renamed';
  } catch (error) {
    noteRefusal(context, place, error, 'agents.sessions.rename');
    return 'not-available';
  }
}
