import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AppDelivery, createAppDelivery } from './app-delivery.ts';
import { createChangeNotifier } from './change-notifier.ts';
import { defaultPersonId } from './event-payloads.ts';
import type { ApiCall, EphemeralMessage, FakeSlackState, NativeStreamingMode } from './fake-slack-state.ts';
import {
  createFileStore,
  type FileDownload,
  type FileRedirect,
  type SlackFile,
  type UploadedFile,
} from './file-store.ts';
import { messageLimits } from './message-limits.ts';
import { createMessageStore, type NewMessage, type StoredMessage } from './message-store.ts';
import type { NativeStream } from './native-streams.ts';
import { createRateLimiter, type RateLimit } from './rate-limiter.ts';
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
  /** Default `enabled`; the other modes answer the stream methods like an app without the AI feature. */
  nativeStreaming?: NativeStreamingMode;
  /** How long a Socket Mode delivery waits for a connection and its ack. Default 3,000 ms, Slack's. */
  ackTimeoutMs?: number;
  /** Longest `text` `chat.update` accepts (`msg_too_long` above). Default 40,000. */
  maxUpdateTextCharacters?: number;
  /** Called with each Web API call once it is answered, e.g. to log it or to time it in a benchmark. */
  onCall?: (call: ApiCall) => void;
}

/** A running fake Slack: Web API, file hosting, response URLs and Socket Mode on one port. */
export interface FakeSlack extends AppDelivery {
  /** Give this to the WebClient as `slackApiUrl`: `http://127.0.0.1:PORT/api/`. */
  readonly apiUrl: string;
  /** `http://127.0.0.1:PORT`. */
  readonly origin: string;
  readonly port: number;
  readonly botToken: string;
  readonly appToken: string;
  readonly signingSecret: string;
  readonly workspace: Workspace;
  /** Where HTTP deliveries go by default. */
  appUrl: string | undefined;

  /** The messages of a channel (thread replies included), oldest first; with `threadTs`, only that thread's replies. */
  messages(channel: string, threadTs?: string): StoredMessage[];
  message(channel: string, ts: string): StoredMessage | undefined;
  /** Every Web API call, oldest first. */
  readonly calls: ApiCall[];
  /** The calls of one method, oldest first. */
  callsTo(method: string): ApiCall[];
  /** Native streams (`chat.startStream` …), oldest first. */
  readonly streams: NativeStream[];
  readonly ephemeralMessages: EphemeralMessage[];
  readonly responseUrlPosts: ResponseUrlPost[];
  readonly uploadedFiles: UploadedFile[];
  readonly fileDownloads: FileDownload[];
  readonly socketAcks: SocketAck[];
  readonly socketConnections: SocketConnection[];
  openSocketCount(): number;
  /** How many calls were answered 429: of `method`, or in total. */
  rateLimitedCount(method?: string): number;
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
  /** Drops every Socket Mode connection without a close frame. */
  dropSockets(): void;
  /**
   * Forgets messages, calls, streams, files, uploads, posts, acks, rate-limit buckets, forced answers
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
    calls: [],
    rateLimiter: createRateLimiter({
      isEnabled: options.rateLimits !== false,
      limits: options.rateLimits === false ? undefined : options.rateLimits,
    }),
    responseUrls: createResponseUrlStore({ origin, teamId: workspace.teamId }),
    forcedFailures: new Map(),
    nativeStreaming: initialNativeStreaming,
    maxUpdateTextCharacters: options.maxUpdateTextCharacters ?? messageLimits.maxTextCharacters,
    openSocketUrl: () => socketServer.createConnectionUrl(state.origin),
    notifyChange: notifier.notify,
    onCall: options.onCall,
  };
  const signingSecret = options.signingSecret ?? 'fake-signing-secret';

  const server = createServer(createRequestListener(state));
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
    port,
    botToken: state.botToken,
    appToken: state.appToken,
    signingSecret,
    workspace,
    appUrl: options.appUrl,
    ...createAppDelivery({ state, socketServer, signingSecret, appUrl: () => fake.appUrl }),

    messages: (channel, threadTs) =>
      threadTs === undefined ? state.messages.inChannel(channel) : state.messages.replies(channel, threadTs),
    message: (channel, ts) => state.messages.find(channel, ts),
    calls: state.calls,
    callsTo: (method) => state.calls.filter((call) => call.method === method),
    streams: state.streams,
    ephemeralMessages: state.ephemeralMessages,
    responseUrlPosts: state.responseUrls.posts,
    uploadedFiles: state.files.uploaded,
    fileDownloads: state.files.downloads,
    socketAcks: socketServer.acks,
    socketConnections: socketServer.connections,
    openSocketCount: socketServer.openCount,
    rateLimitedCount: (method) => state.rateLimiter.rateLimitedCount(method),
    waitFor: notifier.waitFor,

    addFile: ({ user, ...file }) => state.files.add({ ...file, user: user ?? defaultPersonId }),
    addUser: state.directory.addUser,
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
    reset() {
      state.messages.clear();
      state.files.clear();
      state.streams.length = 0;
      state.ephemeralMessages.length = 0;
      state.calls.length = 0;
      state.responseUrls.clear();
      state.rateLimiter.reset();
      state.forcedFailures.clear();
      state.nativeStreaming = initialNativeStreaming;
      socketServer.acks.length = 0;
    },
    async close() {
      notifier.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await socketServer.close();
      server.closeAllConnections();
      await closed;
    },
  };
  return fake;
}
