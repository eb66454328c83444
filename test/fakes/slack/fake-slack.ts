import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AgentSessionsState, createAgentSessionsState } from './agent-sessions.ts';
import {
  type AgentExperience,
  type AgentViewState,
  createAgentViewState,
  resetAgentViewState,
  stopAgentSession,
} from './agent-view.ts';
import { type AppDelivery, createAppDelivery } from './app-delivery.ts';
import { createChangeNotifier } from './change-notifier.ts';
import { defaultPersonId } from './event-payloads.ts';
import type {
  ApiCall,
  EphemeralMessage,
  FakeSlackState,
  HistoryAccess,
  NativeStreamingMode,
  OpenedView,
} from './fake-slack-state.ts';
import {
  createFileStore,
  type FileDownload,
  type FileRedirect,
  type SlackFile,
  type UploadedFile,
} from './file-store.ts';
import { pathOf } from './http-io.ts';
import type { SlackMention } from './mention-scanner.ts';
import { messageLimits } from './message-limits.ts';
import { createMessageStore, type NewMessage, type StoredMessage } from './message-store.ts';
import type { NativeStream } from './native-streams.ts';
import {
  approveInstall,
  createOAuthState,
  type EnterpriseOrg,
  type InstallableWorkspace,
  newWorkspace,
  type OAuthState,
  revokeInstallation,
} from './oauth-installs.ts';
import { createFakeOpenId, type FakeOpenId } from './openid-routes.ts';
import { createRateLimiter, type RateLimit, rateLimitTiers } from './rate-limiter.ts';
import { createRequestListener, createUpgradeListener } from './request-router.ts';
import { createResponseUrlStore, type ResponseUrlPost } from './response-urls.ts';
import { nextMessageTs } from './slack-ids.ts';
import { createSocketModeServer, type SocketAck, type SocketConnection } from './socket-mode-server.ts';
import {
  createDirectory,
  defaultWorkspace,
  type Workspace,
  type WorkspaceChannel,
  type WorkspaceUser,
} from './workspace.ts';

/** How to start the fake. Everything is optional. */
export interface FakeSlackOptions {
  /** Port on 127.0.0.1. Default 0: a free port chosen by the system. */
  port?: number;
  /** The bot token (`xoxb-…`) the Web API accepts and private files need. */
  botToken?: string;
  /** The app-level token (`xapp-…`) `apps.connections.open` accepts. */
  appToken?: string;
  /** The secret HTTP deliveries are signed with. */
  signingSecret?: string;
  workspace?: Partial<Workspace>;
  /** Where HTTP deliveries go unless a delivery names a `url`, e.g. `http://127.0.0.1:3000/slack/events`. */
  appUrl?: string;
  /** `false` turns rate limits off; a record overrides the defaults per method (`null` removes one). */
  rateLimits?: false | Record<string, RateLimit | null>;
  /**
   * `non-marketplace` applies the history limits of apps distributed outside the Slack Marketplace:
   * conversations.history/replies at Tier 1 with at most 15 messages a call. Default `internal`.
   */
  historyAccess?: HistoryAccess;
  /** Default `enabled`; the other modes answer the stream methods like an app without the AI feature. */
  nativeStreaming?: NativeStreamingMode;
  /** The app's Messages tab; default on. Off, chat.startStream in a DM answers `messages_tab_disabled`. */
  isMessagesTabEnabled?: boolean;
  /**
   * How long a native stream may go without a write before Slack ends it on its own. Slack publishes
   * no number; default 5 minutes.
   */
  streamIdleTimeoutMs?: number;
  /** How long a Socket Mode delivery waits for a connection and its ack. Default 3,000 ms, Slack's. */
  ackTimeoutMs?: number;
  /**
   * How long after `files.completeUploadExternal` Slack shares the files (the message with them
   * appears, `files.info` lists the share). Slack publishes no number; default 400 ms.
   */
  fileShareDelayMs?: number;
  /** Longest `text` `chat.update` accepts (`msg_too_long` above). Default 40,000. */
  maxUpdateTextCharacters?: number;
  /** How long a `response_url` works. Default 30 minutes, Slack's. */
  responseUrlLifetimeMs?: number;
  /** `agent` (manifest `agent_view`, the default) or the legacy `assistant` (`assistant_view`). */
  agentExperience?: AgentExperience;
  /**
   * The app is declared an agent in its settings (docs.slack.dev/ai/agent-sessions): it may call
   * agents.sessions.*. Default off, as an app that is not (those calls answer `not_allowed`).
   */
  isDeclaredAgent?: boolean;
  /** The App Home's Home tab; default on. Off, views.publish of a home view answers `not_enabled`. */
  isHomeTabEnabled?: boolean;
  /** Called with each Web API call once it is answered, e.g. to log it or to time it in a benchmark. */
  onCall?: (call: ApiCall) => void;
  /** The app's Client ID and Client Secret, for installs by OAuth (`oauth.v2.access`). */
  clientId?: string;
  clientSecret?: string;
  /** The app has token rotation on: installs get expiring tokens and refresh tokens. Default off. */
  isTokenRotationEnabled?: boolean;
}

/** A running fake Slack: Web API, file hosting, response URLs and Socket Mode on one port. */
export interface FakeSlack extends AppDelivery {
  /** Give this to the WebClient as `slackApiUrl`: `http://127.0.0.1:PORT/api/`. */
  readonly apiUrl: string;
  /** `http://127.0.0.1:PORT`. */
  readonly origin: string;
  /** Sign in with Slack (OpenID Connect): the authorize page, openid.connect.token and .userInfo. */
  readonly openId: FakeOpenId;
  readonly port: number;
  readonly botToken: string;
  readonly appToken: string;
  readonly signingSecret: string;
  readonly workspace: Workspace;
  /** Where HTTP deliveries go by default. */
  appUrl: string | undefined;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Installs by OAuth: workspaces, orgs, codes, issued tokens, refreshes (oauth-installs.ts). */
  readonly oauth: OAuthState;
  /** Adds a workspace the app can be installed in by OAuth, with the channels that are its own. */
  addInstallableWorkspace(options: {
    teamId: string;
    teamName?: string;
    enterpriseId?: string;
    channels?: string[];
  }): InstallableWorkspace;
  /** Adds an Enterprise Grid org, for an org-wide install. */
  addEnterprise(options: { enterpriseId: string; name?: string }): EnterpriseOrg;
  /** A person approves the install on Slack's authorize page: the `code` and `state` of Slack's redirect. */
  approveInstall(options: Parameters<typeof approveInstall>[1]): { code: string; state: string };
  /** The app is uninstalled from a workspace or org: its tokens stop working (the events are the test's to deliver). */
  revokeInstallation(owner: { teamId?: string; enterpriseId?: string }): void;

  /** The messages of a channel (thread replies included), oldest first; with `threadTs`, only that thread's replies. */
  messages(channel: string, threadTs?: string): StoredMessage[];
  message(channel: string, ts: string): StoredMessage | undefined;
  /** Every Web API call, oldest first. */
  readonly calls: ApiCall[];
  /** Every notification Slack would have sent for what the app posted (`<!here>`, `<@U…>` …). */
  readonly mentions: SlackMention[];
  /** The calls of one method, oldest first. */
  callsTo(method: string): ApiCall[];
  /** Native streams (`chat.startStream` …), oldest first. */
  readonly streams: NativeStream[];
  readonly ephemeralMessages: EphemeralMessage[];
  /** Every modal the app opened with `views.open`, oldest first. */
  readonly openedViews: OpenedView[];
  readonly responseUrlPosts: ResponseUrlPost[];
  readonly uploadedFiles: UploadedFile[];
  readonly fileDownloads: FileDownload[];
  readonly socketAcks: SocketAck[];
  readonly socketConnections: SocketConnection[];
  openSocketCount(): number;
  /** How many calls were answered 429: of `method`, or in total. */
  rateLimitedCount(method?: string): number;
  /** Suggested prompts, thread titles and Home tabs the app set. */
  readonly agent: AgentViewState;
  /** The agent sessions the app created with agents.sessions.setStatus, by `channel thread_ts`. */
  readonly agentSessions: AgentSessionsState;
  /**
   * A person pressed Slack's stop control in a thread: the app's streams there stop taking appends.
   * Returns their timestamps, for the `agent_session_stopped` event to deliver.
   */
  stopAgentSession(options: { channel: string; threadTs: string }): string[];
  /** Resolves with the predicate's first truthy value; rejects after `timeoutMs` (default 5,000). */
  waitFor<Value>(predicate: () => Value | undefined | null | false, timeoutMs?: number): Promise<Value>;

  /** Hosts a file privately, as if a person had uploaded it; share it in an event's `files`. */
  addFile(options: {
    name: string;
    bytes: Buffer;
    mimetype?: string;
    title?: string;
    user?: string;
    /** An external file whose `url_private` points here, outside Slack. */
    linkTo?: string;
    /** Downloads redirect: to another Slack file host, or away from Slack. */
    redirect?: FileRedirect;
  }): SlackFile;
  addUser(user: Partial<WorkspaceUser> & { id: string }): WorkspaceUser;
  /** Adds a user group (`@handle`) with its members, as `usergroups.list` lists it. */
  addUserGroup(group: { id: string; handle: string; userIds: string[] }): void;
  addChannel(channel: Partial<WorkspaceChannel> & { id: string }): WorkspaceChannel;
  /** Puts a message in a channel's history without telling the app (for `conversations.*`). */
  addMessage(message: Omit<NewMessage, 'ts'> & { ts?: string }): StoredMessage;

  /** Switches native streaming on, or off the way an app without the AI feature sees it. */
  setNativeStreaming(mode: NativeStreamingMode): void;
  /** The next `times` calls of `method` get a 429 with `Retry-After: retryAfterSec` (limits on or off). */
  forceRateLimit(options: { method: string; times?: number; retryAfterSec?: number }): void;
  /** The next `times` calls of `method` get `{ ok: false, error }`. */
  failNext(options: { method: string; error: string; times?: number }): void;
  /** Sends `{"type":"disconnect"}` to every Socket Mode connection; the app should reconnect. */
  disconnectSockets(reason?: string): void;
  /** Ages every `response_url` handed out so far past its 30 minutes: later posts get 404 expired_url. */
  expireResponseUrls(): void;
  /** Drops every Socket Mode connection without a close frame. */
  dropSockets(): void;
  /**
   * Forgets messages, calls, mentions, streams, files, uploads, posts, acks, rate-limit buckets, forced answers
   * and switches. Keeps users, channels and open sockets.
   */
  reset(): void;
  /** Ends every socket and the server; pending waits and deliveries reject. */
  close(): Promise<void>;
}

/** Starts a fake Slack on 127.0.0.1 that speaks what Bolt and the WebClient expect. */
export async function startFakeSlack(options: FakeSlackOptions = {}): Promise<FakeSlack> {
  const workspace: Workspace = { ...defaultWorkspace, ...options.workspace };
  const notifier = createChangeNotifier();
  const socketServer = createSocketModeServer({
    workspace,
    defaultAckTimeoutMs: options.ackTimeoutMs ?? 3_000,
    notifyChange: notifier.notify,
  });
  const initialNativeStreaming = options.nativeStreaming ?? 'enabled';
  const historyAccess = options.historyAccess ?? 'internal';
  const origin = () => state.origin;
  const state: FakeSlackState = {
    workspace,
    directory: createDirectory(workspace),
    botToken: options.botToken ?? 'xoxb-fake-bot-token',
    appToken: options.appToken ?? 'xapp-fake-app-token',
    origin: '',
    messages: createMessageStore(),
    files: createFileStore({ origin, teamId: workspace.teamId }),
    streams: [],
    ephemeralMessages: [],
    issuedTriggers: new Map(),
    openedViews: [],
    calls: [],
    mentions: [],
    rateLimiter: createRateLimiter({
      isEnabled: options.rateLimits !== false,
      limits: {
        ...(historyAccess === 'non-marketplace'
          ? { 'conversations.history': rateLimitTiers.tier1, 'conversations.replies': rateLimitTiers.tier1 }
          : {}),
        ...(options.rateLimits === false ? {} : options.rateLimits),
      },
    }),
    historyAccess,
    responseUrls: createResponseUrlStore({
      origin,
      teamId: workspace.teamId,
      lifetimeMs: options.responseUrlLifetimeMs,
    }),
    forcedFailures: new Map(),
    nativeStreaming: initialNativeStreaming,
    isMessagesTabEnabled: options.isMessagesTabEnabled ?? true,
    streamIdleTimeoutMs: options.streamIdleTimeoutMs ?? 5 * 60_000,
    streamIdleTimers: new Map(),
    fileShareDelayMs: options.fileShareDelayMs ?? 400,
    pendingShares: new Set(),
    fileShares: new Map(),
    maxUpdateTextCharacters: options.maxUpdateTextCharacters ?? messageLimits.maxTextCharacters,
    agent: createAgentViewState({
      experience: options.agentExperience,
      isHomeTabEnabled: options.isHomeTabEnabled,
    }),
    agentSessions: createAgentSessionsState({ isDeclaredAgent: options.isDeclaredAgent }),
    openSocketUrl: () => socketServer.createConnectionUrl(state.origin),
    notifyChange: notifier.notify,
    onCall: options.onCall,
    caller: undefined,
    oauth: createOAuthState({
      clientId: options.clientId,
      clientSecret: options.clientSecret,
      isTokenRotationEnabled: options.isTokenRotationEnabled,
    }),
  };
  const signingSecret = options.signingSecret ?? 'fake-signing-secret';

  const openId = createFakeOpenId({ workspace, directory: state.directory, origin });
  const listener = createRequestListener(state);
  const server = createServer((request, response) => {
    openId.serve(request, response, pathOf(request)).then(
      (isServed) => {
        if (!isServed) listener(request, response);
      },
      () => response.destroy(),
    );
  });
  server.on('upgrade', createUpgradeListener(socketServer));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  state.origin = `http://127.0.0.1:${port}`;

  const fake: FakeSlack = {
    apiUrl: `${state.origin}/api/`,
    origin: state.origin,
    openId,
    port,
    botToken: state.botToken,
    appToken: state.appToken,
    signingSecret,
    workspace,
    appUrl: options.appUrl,
    clientId: state.oauth.clientId,
    clientSecret: state.oauth.clientSecret,
    oauth: state.oauth,
    addInstallableWorkspace(workspaceOptions) {
      const added = newWorkspace(workspaceOptions);
      state.oauth.workspaces.set(added.teamId, added);
      return added;
    },
    addEnterprise({ enterpriseId, name }) {
      const org: EnterpriseOrg = {
        enterpriseId,
        name: name ?? `Org ${enterpriseId}`,
        domain: enterpriseId.toLowerCase(),
        botUserId: `U${enterpriseId.slice(1)}BOT`,
        botId: `B${enterpriseId.slice(1)}BOT`,
      };
      state.oauth.enterprises.set(enterpriseId, org);
      return org;
    },
    approveInstall: (install) => approveInstall(state.oauth, install),
    revokeInstallation: (owner) => revokeInstallation(state.oauth, owner),
    ...createAppDelivery({ state, socketServer, signingSecret, appUrl: () => fake.appUrl }),

    messages: (channel, threadTs) =>
      threadTs === undefined ? state.messages.inChannel(channel) : state.messages.replies(channel, threadTs),
    message: (channel, ts) => state.messages.find(channel, ts),
    calls: state.calls,
    mentions: state.mentions,
    callsTo: (method) => state.calls.filter((call) => call.method === method),
    streams: state.streams,
    ephemeralMessages: state.ephemeralMessages,
    openedViews: state.openedViews,
    responseUrlPosts: state.responseUrls.posts,
    uploadedFiles: state.files.uploaded,
    fileDownloads: state.files.downloads,
    socketAcks: socketServer.acks,
    socketConnections: socketServer.connections,
    openSocketCount: socketServer.openCount,
    rateLimitedCount: (method) => state.rateLimiter.rateLimitedCount(method),
    waitFor: notifier.waitFor,
    agent: state.agent,
    agentSessions: state.agentSessions,
    stopAgentSession: (place) => stopAgentSession(state, place),

    addFile: ({ user, ...file }) => state.files.add({ ...file, user: user ?? defaultPersonId }),
    addUser: state.directory.addUser,
    addUserGroup: (group) => {
      state.directory.addUserGroup(group);
    },
    addChannel: state.directory.addChannel,
    addMessage(message) {
      const stored = state.messages.add({ ...message, ts: message.ts ?? nextMessageTs() });
      notifier.notify();
      return stored;
    },

    setNativeStreaming(mode) {
      state.nativeStreaming = mode;
    },
    forceRateLimit: (forced) => state.rateLimiter.forceRateLimit(forced),
    failNext({ method, error, times = 1 }) {
      state.forcedFailures.set(method, { error, remaining: times });
    },
    disconnectSockets: (reason = 'refresh_requested') => socketServer.disconnectAll(reason),
    dropSockets: () => socketServer.terminateAll(),
    expireResponseUrls: () => state.responseUrls.expireAll(),
    reset() {
      state.messages.clear();
      state.files.clear();
      for (const timer of state.pendingShares) clearTimeout(timer);
      state.pendingShares.clear();
      state.fileShares.clear();
      state.streams.length = 0;
      for (const timer of state.streamIdleTimers.values()) clearTimeout(timer);
      state.streamIdleTimers.clear();
      state.ephemeralMessages.length = 0;
      state.openedViews.length = 0;
      resetAgentViewState(state.agent);
      state.agentSessions.sessions.clear();
      state.issuedTriggers.clear();
      state.calls.length = 0;
      state.mentions.length = 0;
      state.responseUrls.clear();
      state.rateLimiter.reset();
      state.forcedFailures.clear();
      state.nativeStreaming = initialNativeStreaming;
      socketServer.acks.length = 0;
    },
    async close() {
      notifier.close();
      for (const timer of state.streamIdleTimers.values()) clearTimeout(timer);
      for (const timer of state.pendingShares) clearTimeout(timer);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await socketServer.close();
      server.closeAllConnections();
      await closed;
    },
  };
  return fake;
}
