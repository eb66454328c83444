import type { webApi } from '@slack/bolt';
import type { Logger } from '../../src/log.ts';
import type { AgentSessions } from './agent-session-records.ts';
import type { SlackOutbound } from './slack-outbound.ts';
import type { WorkspaceFeatures } from './workspace-features.ts';

/** Where a reply goes: a channel or DM, in a thread or at the top, for one person. */
export interface ReplyPlace {
  /** The listener's WebClient (Bolt pools one a workspace). */
  readonly client: webApi.WebClient;
  readonly teamId: string;
  readonly channel: string;
  /** The thread replies go to; undefined posts at the top (a DM, a slash command's channel). */
  readonly threadTs: string | undefined;
  /**
   * `channel`, `group`, `im` or `mpim` where known (message events carry it; a DM's id starts with
   * D): a refusal of native streaming for a kind of channel is remembered for that kind.
   */
  readonly channelType?: string;
  /**
   * The person the reply is for: a native stream outside a DM must name them, and private buttons go
   * to them. Undefined for another bot's message, which then gets no native stream.
   */
  readonly recipientUserId: string | undefined;
}

/** What every Slack surface shares for the whole process. */
export interface SlackDeliveryContext {
  readonly features: WorkspaceFeatures;
  /** The bot's one outbound queue: every reply's Web API calls wait their turn in it. */
  readonly outbound: SlackOutbound;
  readonly logger: Logger;
  /**
   * How long a native stream runs before the person gets a private Stop button (a streamed message
   * cannot carry buttons until it ends). Short replies finish before and never show one.
   */
  readonly stopButtonDelayMs: number;
  /**
   * How long a reply may take to post before "is thinking…" goes up under its thread (see
   * `showThinkingStatusUnlessAnswered`): a reply that answers sooner shows no status at all.
   */
  readonly thinkingStatusDelayMs: number;
  /** SLACK_AGENT_SESSIONS, and the session status parley set in each thread (agent-sessions.ts). */
  readonly agentSessions: AgentSessions;
}
