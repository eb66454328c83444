import type { AgentSessionsState } from './agent-sessions.ts';
import type { AgentViewState } from './agent-view.ts';
import type { ApiArguments } from './api-arguments.ts';
import type { FileStore } from './file-store.ts';
import type { SlackMention } from './mention-scanner.ts';
import type { MessageStore } from './message-store.ts';
import type { NativeStream } from './native-streams.ts';
import type { OAuthState } from './oauth-installs.ts';
import type { RateLimiter } from './rate-limiter.ts';
import type { ResponseUrlStore } from './response-urls.ts';
import type { Directory, Workspace } from './workspace.ts';

/**
 * How the fake answers the native streaming methods: `enabled` like an app with the Agents & AI Apps
 * feature; the others like an app without it.
 */
export type NativeStreamingMode = 'enabled' | 'not_allowed' | 'unknown_method';

/**
 * How the app may read history: `internal` (a single-workspace app, or one from the Marketplace) or
 * `non-marketplace` (an app distributed to other workspaces outside the Marketplace, limited since
 * 2025: 15 messages a call, Tier 1).
 */
export type HistoryAccess = 'internal' | 'non-marketplace';

/** One Web API call as the fake received and answered it. */
export interface ApiCall {
  /** E.g. `chat.postMessage`. */
  method: string;
  /** The arguments with JSON-valued fields decoded and the token left out. */
  arguments: ApiArguments;
  /** The token the call was made with (header or argument). */
  token: string | undefined;
  /** 200, or 429 when rate limited. */
  status: number;
  /** The response body. */
  result: Record<string, unknown>;
  /** `Date.now()` when the request arrived. */
  receivedAtMs: number;
}

/** A message only one person sees: from `chat.postEphemeral` or an ephemeral `response_url` post. */
export interface EphemeralMessage {
  channel: string;
  user: string | undefined;
  text: string;
  blocks: unknown[] | undefined;
  threadTs: string | undefined;
  source: 'chat.postEphemeral' | 'response_url';
  atMs: number;
}

/** A forced `{ ok: false, error }` for the next calls of a method. */
export interface ForcedFailure {
  error: string;
  remaining: number;
}

/** Everything the parts of the fake share. */
export interface FakeSlackState {
  readonly workspace: Workspace;
  readonly directory: Directory;
  readonly botToken: string;
  readonly appToken: string;
  /** `http://127.0.0.1:PORT`, set once the server listens. */
  origin: string;
  readonly messages: MessageStore;
  readonly files: FileStore;
  readonly streams: NativeStream[];
  readonly ephemeralMessages: EphemeralMessage[];
  readonly calls: ApiCall[];
  /** Every notification Slack would have sent because of what the app posted. */
  readonly mentions: SlackMention[];
  readonly rateLimiter: RateLimiter;
  readonly responseUrls: ResponseUrlStore;
  readonly forcedFailures: Map<string, ForcedFailure>;
  nativeStreaming: NativeStreamingMode;
  /** The app's Messages tab (App Home); without it Slack refuses streams into DMs. */
  isMessagesTabEnabled: boolean;
  /** How long a native stream may go without a write before Slack ends it. */
  streamIdleTimeoutMs: number;
  /** The pending idle end of each open stream, by `channel ts`. */
  readonly streamIdleTimers: Map<string, ReturnType<typeof setTimeout>>;
  /** `non-marketplace`: conversations.history/replies return at most 15 messages a call. */
  readonly historyAccess: HistoryAccess;
  /** How long after `files.completeUploadExternal` the files are shared in their channel. */
  fileShareDelayMs: number;
  /** Shares that have not happened yet, so that reset and close can cancel them. */
  readonly pendingShares: Set<ReturnType<typeof setTimeout>>;
  /** Where each shared file was shared, as `files.info` shows it. */
  readonly fileShares: Map<string, FileShare>;
  /** Longest `text` `chat.update` accepts; longer gets `msg_too_long`. */
  maxUpdateTextCharacters: number;
  /** When each trigger_id the fake handed the app (with a command or click) was issued. */
  readonly issuedTriggers: Map<string, number>;
  /** Every modal the app opened with `views.open`, oldest first. */
  readonly openedViews: OpenedView[];
  /** Suggested prompts, thread titles and Home tabs (agent-view.ts). */
  readonly agent: AgentViewState;
  /** Agent sessions, for an app declared as an agent (agent-sessions.ts). */
  readonly agentSessions: AgentSessionsState;
  /** A fresh Socket Mode URL for `apps.connections.open`. */
  openSocketUrl(): string;
  /** Wakes `waitFor` after anything a test could observe has changed. */
  notifyChange(): void;
  onCall: ((call: ApiCall) => void) | undefined;
  /** Installs by OAuth in other workspaces and orgs, and the tokens they were given (oauth-installs.ts). */
  readonly oauth: OAuthState;
  /**
   * The installation whose token makes the call being answered (set around each method, which runs
   * synchronously); undefined for the fake's own bot token.
   */
  caller: { teamId?: string; enterpriseId?: string; isEnterpriseInstall: boolean } | undefined;
}

/** A Web API method: gets the call's arguments, returns the fields of an `ok: true` answer or throws. */
export type ApiMethod = (state: FakeSlackState, args: ApiArguments) => Record<string, unknown>;

/** One share of a file, as `files.info` lists it under `shares.public` or `shares.private`. */
export interface FileShare {
  visibility: 'public' | 'private';
  channel: string;
  entry: Record<string, unknown>;
}

/** A modal the app opened, as `views.open` stored it. */
export interface OpenedView {
  id: string;
  triggerId: string;
  view: Record<string, unknown>;
}
