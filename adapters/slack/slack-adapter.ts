import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, type InstallationStore, SocketModeReceiver, webApi } from '@slack/bolt';
import type { Keyv } from 'keyv';
import type { CommandServices } from '../../commands/define-command.ts';
import { keepFinishingOrphanedReplies, orphanClaimTtlMs } from '../../commands/finish-orphaned-replies.ts';
import type { Logger } from '../../src/log.ts';
import { countPlatformRequests } from '../../src/operations/count-platform-requests.ts';
import { reportPlatformConnection } from '../../src/operations/health.ts';
import { createInMemoryDeduper, type Deduper } from '../../src/state/dedupe.ts';
import { createInProcessLock, type KeyedLock } from '../../src/state/keyed-lock.ts';
import { registerActions } from './action-handlers.ts';
import type { SlackAdapterContext } from './adapter-context.ts';
import { createAgentSessions } from './agent-session-records.ts';
import { registerAgentViewEvents } from './agent-view-events.ts';
import { registerAppHome } from './app-home.ts';
import { createBoltLogger } from './bolt-logger.ts';
import { registerChatEvents } from './chat-events.ts';
import { registerCommands } from './command-handlers.ts';
import { registerFeedbackButtons } from './feedback-buttons.ts';
import { registerFormSubmissions } from './form-modal.ts';
import { createInstallationTroubles, reportInstallationTroubles } from './installation-troubles.ts';
import { registerMessageShortcuts } from './message-shortcut-handlers.ts';
import { createMethodPauses, type MethodPauses } from './method-pauses.ts';
import { createThreadStops, registerNativeStop } from './native-stop.ts';
import { createOrphanedReplySurface, slackReplyAddressSchema } from './orphaned-reply-surface.ts';
import { reportSlackCallOutcomes, slackRouteClassOf } from './report-call-outcomes.ts';
import { createSealedInstallationStore, type SealedInstallationStore } from './sealed-installation-store.ts';
import { createSignedRequestReceiver, slackEventsPath } from './signed-request-receiver.ts';
import type { SlackOAuthSettings, SlackSettings } from './slack-config.ts';
import {
  createInstallCallbacks,
  createOneUseStateStore,
  createTokenRefresher,
  defaultRedirectPath,
  installPath,
  requiredBotScopes,
} from './slack-installer.ts';
import { createSlackOutbound, type SlackOutbound } from './slack-outbound.ts';
import { registerSlackPlaces, type SlackWorkspaceClients } from './slack-scheduled-places.ts';
import { identifyBot, type SlackIdentity, startupErrorOf } from './slack-startup.ts';
import { thinkingStatusDelayMs as defaultThinkingStatusDelayMs } from './thread-status.ts';
import { registerUninstallEvents } from './uninstall-events.ts';
import { createUserDirectory } from './user-directory.ts';
import { createUserGroupDirectory } from './user-groups.ts';
import { createWorkspaceFeatures } from './workspace-features.ts';

export interface StartSlackAdapterOptions {
  readonly services: CommandServices;
  readonly slack: SlackSettings;
  readonly logger: Logger;
  /** Largest image a person may share, in bytes. */
  readonly maxImageBytes: number;
  /** The interface HTTP mode listens on (HOST); default all of them. */
  readonly host?: string;
  /** Shared with other bot processes (Redis) so that only one answers a redelivered event. */
  readonly deduper?: Deduper;
  /** How long a native stream runs before the person gets a private Stop button. Default 2,500 ms. */
  readonly stopButtonDelayMs?: number;
  /** How long a reply may take to post before "is thinking…" goes up. Default 1,000 ms. */
  readonly thinkingStatusDelayMs?: number;
  /** The bot's outbound queue, with the per-workspace budgets of Web API calls; default a new one. */
  readonly outbound?: SlackOutbound;
  /** Holds a rate-limited method (and only it) for its Retry-After; default a new layer. */
  readonly methodPauses?: MethodPauses;
  /** With OAuth: where installations are kept (a namespace of parley's store); default in memory. */
  readonly installationKeyv?: Keyv;
  /** With OAuth: held while a token is refreshed; on Redis shared, so one process refreshes. */
  readonly installationLock?: KeyedLock;
}

/** A running Slack adapter. */
export interface SlackAdapter {
  readonly app: App;
  /** The port HTTP mode listens on (the real one when `slack.port` is 0); undefined in Socket Mode. */
  readonly port: number | undefined;
  /** With OAuth: the installations (and in Socket Mode, the port of the install pages). */
  readonly installations: SealedInstallationStore | undefined;
  /** With OAuth in Socket Mode: the port the install pages listen on; in HTTP mode they share `port`. */
  readonly installPort: number | undefined;
  stop(): Promise<void>;
}

/**
 * The WebClient's retries of failed requests (a 429 is retried by method-pauses.ts instead). Bolt's
 * default would retry for half an hour, long after the person stopped waiting.
 */
const retryConfig = { retries: 3, factor: 2, minTimeout: 100, maxTimeout: 2_000 };

/**
 * Starts parley on Slack with a real Bolt app: over Socket Mode when the transport is `socket` (no
 * public URL needed), else over HTTP with events, commands and interactivity at
 * `POST /slack/events` on `slack.port`, signed requests only. Resolves once it is connected or
 * listening, having logged the mode, the address and the workspace; rejects with one sentence naming
 * the variable to fix when Slack refuses a token or the port cannot be opened.
 */
export async function startSlackAdapter({
  services,
  slack,
  logger,
  maxImageBytes,
  host,
  deduper = createInMemoryDeduper(),
  stopButtonDelayMs = 2_500,
  thinkingStatusDelayMs = defaultThinkingStatusDelayMs,
  outbound = createSlackOutbound(),
  methodPauses,
  installationKeyv,
  installationLock = createInProcessLock(),
}: StartSlackAdapterOptions): Promise<SlackAdapter> {
  const adapterLogger = logger.child({ adapter: 'slack' });
  const boltLogger = createBoltLogger(adapterLogger);
  const pauses =
    methodPauses ??
    createMethodPauses({
      apiUrl: slack.apiUrl,
      logger: adapterLogger,
      // Every Web API call and 429 as it goes out, by method, for /metrics (uploads go to a URL that
      // holds a token, so they are one class).
      baseFetch: countPlatformRequests({
        platform: 'slack',
        routeClassOf: slackRouteClassOf,
      }),
    });
  const clientOptions = {
    slackApiUrl: slack.apiUrl,
    retryConfig,
    timeout: 30_000,
    logger: boltLogger,
    // A 429 pauses only its own method (method-pauses.ts), never the client's whole queue.
    rejectRateLimitedCalls: true,
    // Every call's outcome reaches /readyz, so a Slack outage reads "platform degraded" there.
    fetch: reportSlackCallOutcomes(pauses.fetch),
  };
  const identity =
    slack.botToken === undefined ? undefined : await identifyBot({ token: slack.botToken, clientOptions });
  if (identity !== undefined) logSignedIn({ logger: adapterLogger, identity, mode: slack.transport.mode });

  const troubles = createInstallationTroubles();
  if (slack.oauth !== undefined) reportInstallationTroubles(troubles);
  const installations =
    slack.oauth === undefined
      ? undefined
      : createSealedInstallationStore({
          troubles,
          keyv: installationKeyv ?? new (await import('keyv')).Keyv(),
          encryption: slack.oauth.installationsEncryption,
          lock: installationLock,
          refresh: createTokenRefresher({
            clientId: slack.oauth.clientId,
            clientSecret: slack.oauth.clientSecret,
            clientOptions,
          }),
          logger: adapterLogger,
          workspacesOfOrg: (botToken) => workspacesOfOrgInstallation({ botToken, clientOptions }),
        });
  const installer =
    slack.oauth === undefined || installations === undefined
      ? undefined
      : installerOptionsOf({
          oauth: slack.oauth,
          installations,
          apiUrl: slack.apiUrl,
          clientOptions,
          deduper,
          logger: adapterLogger,
          services,
          port: slack.port,
        });

  const common = {
    ...(identity === undefined
      ? {}
      : {
          token: slack.botToken,
          botId: identity.botId,
          botUserId: identity.botUserId,
          // identify() has just checked the token; Bolt need not call auth.test again.
          tokenVerificationEnabled: false,
        }),
    logger: boltLogger,
    clientOptions,
    convoStore: false as const,
  };
  const { transport } = slack;
  const socketReceiver =
    transport.mode === 'socket' && installer !== undefined
      ? new SocketModeReceiver({ appToken: transport.appToken, logger: boltLogger, ...installer })
      : undefined;
  const app =
    socketReceiver !== undefined
      ? new App({ ...common, receiver: socketReceiver })
      : transport.mode === 'socket'
        ? new App({ ...common, appToken: transport.appToken, socketMode: true })
        : new App({
            ...common,
            receiver: createSignedRequestReceiver({
              signingSecret: transport.signingSecret,
              boltLogger,
              logger: adapterLogger,
              ...(installer === undefined ? {} : { installer }),
            }),
          });
  app.error(async (error) => {
    if (
      (error as { code?: unknown }).code === 'slack_bolt_authorization_error' &&
      installations !== undefined
    ) {
      // Bolt has acked it; an event of a workspace parley is not installed in gets no answer.
      adapterLogger.warn(
        { reason: error.message },
        'slack: an event came from a workspace with no usable installation (none, not readable, or its token could not be refreshed); acked, not answered',
      );
      return;
    }
    adapterLogger.error({ err: error }, 'slack: a listener failed');
  });

  const adapter: SlackAdapterContext = {
    services,
    delivery: {
      features: createWorkspaceFeatures(),
      outbound,
      logger: adapterLogger,
      stopButtonDelayMs,
      thinkingStatusDelayMs,
      agentSessions: createAgentSessions(slack.agentSessions),
    },
    directory: createUserDirectory({ logger: adapterLogger }),
    userGroups: createUserGroupDirectory({ logger: adapterLogger }),
    deduper,
    botTokenFor: (client) => client.token ?? slack.botToken ?? '',
    commandPrefix: slack.commandPrefix,
    isReplyingToBots: slack.isReplyingToBots,
    maxImageBytes,
    logger: adapterLogger,
    threadStops: createThreadStops(),
  };
  registerChatEvents({ app, adapter });
  registerCommands({ app, adapter });
  registerActions({ app, adapter });
  registerFormSubmissions({ app, adapter });
  registerAgentViewEvents({ app, adapter });
  registerNativeStop({ app, adapter });
  registerAppHome({ app, adapter });
  registerMessageShortcuts({ app, adapter });
  registerFeedbackButtons({ app, adapter });
  // In a workspace of an org installed org-wide, a person's budget counts across the org's workspaces
  // (their user id is the org's); elsewhere by their user id, as before.
  const forgetPersonScopes =
    installations === undefined
      ? () => {}
      : services.usage.personScopes.register('slack', (place) =>
          installations.orgOfWorkspace(place.workspace),
        );
  if (installations !== undefined) {
    registerUninstallEvents({
      app,
      installations,
      audit: services.audit,
      logger: adapterLogger,
      scheduler: services.scheduling?.scheduler,
      ...(slack.oauth?.isUninstallDeleting && services.workspaceData
        ? { workspaceData: services.workspaceData }
        : {}),
    });
  }
  // In the background: the first replies use no groups rather than wait for Slack.
  if (identity?.teamId) void adapter.userGroups.refresh({ client: app.client, teamId: identity.teamId });
  const workspaceClients: SlackWorkspaceClients =
    installations === undefined
      ? async () => ({ client: app.client, botUserId: identity?.botUserId })
      : createInstalledWorkspaceClients({ installations, clientOptions });
  // Once Slack is connected (in either mode): replies a dead process left are finished.
  const startSweepingOrphans = () =>
    finishRepliesLeftByARestart({
      adapter,
      workspaceClients,
      services,
      deduper,
      outbound,
    });

  if (transport.mode === 'socket') {
    await app.start().catch((error: unknown) => {
      throw startupErrorOf({ error, variable: 'SLACK_APP_TOKEN', apiUrl: slack.apiUrl });
    });
    adapterLogger.info(
      { mode: 'socket' },
      'slack: Socket Mode (SLACK_APP_TOKEN is set): connected; Slack needs no public URL',
    );
    reportPlatformConnection({ platform: 'slack', isConnected: true, state: 'connected over Socket Mode' });
    const installPort = await installPortOf(socketReceiver);
    if (installPort !== undefined)
      logInstallPage({ logger: adapterLogger, host: undefined, port: installPort });
    const stopSweeping = startSweepingOrphans();
    return {
      app,
      port: undefined,
      installations,
      installPort,
      stop: () =>
        stopApp(app, () => {
          stopSweeping();
          forgetPersonScopes();
        }),
    };
  }
  const server = (await app.start({ port: slack.port, ...(host ? { host } : {}) }).catch((error: unknown) => {
    throw startupErrorOf({ error, variable: 'SLACK_BOT_TOKEN', apiUrl: slack.apiUrl, port: slack.port });
  })) as Server;
  const { port } = server.address() as AddressInfo;
  logHttpMode({ logger: adapterLogger, host, port });
  if (installer !== undefined) logInstallPage({ logger: adapterLogger, host, port });
  reportPlatformConnection({ platform: 'slack', isConnected: true, state: `listening on port ${port}` });
  const stopSweeping = startSweepingOrphans();
  return {
    app,
    port,
    installations,
    installPort: undefined,
    stop: () =>
      stopApp(app, () => {
        stopSweeping();
        forgetPersonScopes();
      }),
  };
}

function logSignedIn({
  logger,
  identity,
  mode,
}: {
  logger: Logger;
  identity: SlackIdentity;
  mode: 'socket' | 'http';
}): void {
  logger.info(
    {
      teamId: identity.teamId,
      team: identity.teamName,
      workspaceUrl: identity.workspaceUrl,
      botUserId: identity.botUserId,
      mode,
    },
    `slack: signed in to the workspace "${identity.teamName ?? identity.teamId}" (${identity.workspaceUrl ?? 'no URL'}) as @${identity.botName ?? identity.botUserId}`,
  );
}

/**
 * Bolt's installer (@slack/oauth's InstallProvider, through the receiver): the install page at
 * /slack/install sends the person to Slack's authorize page with the bot scopes and a signed,
 * one-use state; Slack's redirect comes back to /slack/oauth_redirect, where `oauth.v2.access`
 * turns the code into the installation, kept sealed in parley's store. Bolt's `authorize` then reads
 * each event's workspace (or org) installation from that store.
 */
function installerOptionsOf({
  oauth,
  installations,
  apiUrl,
  clientOptions,
  deduper,
  logger,
  services,
  port,
}: {
  oauth: SlackOAuthSettings;
  installations: InstallationStore;
  apiUrl: string;
  clientOptions: NonNullable<ConstructorParameters<typeof App>[0]>['clientOptions'];
  deduper: Deduper;
  logger: Logger;
  services: CommandServices;
  port: number;
}) {
  const redirectPath =
    oauth.redirectUrl === undefined ? defaultRedirectPath : new URL(oauth.redirectUrl).pathname;
  return {
    clientId: oauth.clientId,
    clientSecret: oauth.clientSecret,
    stateSecret: oauth.stateSecret,
    scopes: [...requiredBotScopes],
    installationStore: installations,
    ...(oauth.redirectUrl === undefined ? {} : { redirectUri: oauth.redirectUrl }),
    installerOptions: {
      installPath,
      redirectUriPath: redirectPath,
      // The install page goes straight to Slack: the person chose to install by opening it.
      directInstall: true,
      stateStore: createOneUseStateStore({ stateSecret: oauth.stateSecret, deduper }),
      callbackOptions: createInstallCallbacks({ logger, audit: services.audit }),
      // Slack's authorize page sits beside its Web API: https://slack.com/oauth/v2/authorize.
      authorizationUrl: new URL('../oauth/v2/authorize', apiUrl).toString(),
      ...(clientOptions === undefined ? {} : { clientOptions }),
      // Socket Mode serves the install pages on a port of their own: PORT.
      port,
    },
  };
}

/** In Socket Mode with OAuth, the port the install pages listen on, once they do. */
async function installPortOf(receiver: SocketModeReceiver | undefined): Promise<number | undefined> {
  // Bolt keeps the install pages' server private; with PORT=0 (tests) only it knows the port.
  const server = (receiver as unknown as { httpServer?: Server } | undefined)?.httpServer;
  if (server === undefined) return undefined;
  if (!server.listening) await new Promise((resolve) => server.once('listening', resolve));
  return (server.address() as AddressInfo).port;
}

function logInstallPage({
  logger,
  host,
  port,
}: {
  logger: Logger;
  host: string | undefined;
  port: number;
}): void {
  const url = `http://${host ?? '0.0.0.0'}:${port}${installPath}`;
  logger.info(
    { installUrl: url },
    `slack: installing by OAuth (SLACK_CLIENT_ID is set): each workspace installs parley at https://<your host>${installPath} (here ${url})`,
  );
}

/**
 * A workspace's client for what no event brought (scheduled runs): made with the token of its
 * installation as the store holds it now (refreshed if due), one client per workspace and token.
 */
function createInstalledWorkspaceClients({
  installations,
  clientOptions,
}: {
  installations: SealedInstallationStore;
  clientOptions: webApi.WebClientOptions;
}): SlackWorkspaceClients {
  const clientsByTeam = new Map<string, { token: string; client: webApi.WebClient }>();
  return async (teamId) => {
    const installation = await installations.fetchInstallationOfWorkspace(teamId);
    const token = installation.bot?.token;
    if (token === undefined) throw new Error(`the Slack installation of ${teamId} has no bot token`);
    let known = clientsByTeam.get(teamId);
    // A rotated token replaces its workspace's client.
    if (known?.token !== token) {
      known = { token, client: new webApi.WebClient(token, { ...clientOptions, teamId }) };
      clientsByTeam.set(teamId, known);
    }
    return { client: known.client, botUserId: installation.bot?.userId };
  };
}

/**
 * The workspaces an org-wide installation is approved for, every page of `auth.teams.list` ("No scopes
 * required"; `limit` "no larger than 1000"; `next_cursor` until it is empty; docs.slack.dev
 * reference/methods/auth.teams.list).
 */
async function workspacesOfOrgInstallation({
  botToken,
  clientOptions,
}: {
  botToken: string;
  clientOptions: webApi.WebClientOptions;
}): Promise<string[]> {
  const client = new webApi.WebClient(botToken, clientOptions);
  const teams: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.auth.teams.list({ limit: 1000, ...(cursor ? { cursor } : {}) });
    for (const team of page.teams ?? []) if (team.id !== undefined) teams.push(team.id);
    cursor = page.response_metadata?.next_cursor || undefined;
  } while (cursor !== undefined);
  return teams;
}

/**
 * In the background: replies a killed process left half-written get their text, a note and buttons;
 * now, and while running when the store is shared. Returns the function that stops the sweeps.
 */
function finishRepliesLeftByARestart({
  adapter,
  workspaceClients,
  services,
  deduper,
  outbound,
}: {
  adapter: SlackAdapterContext;
  workspaceClients: SlackWorkspaceClients;
  services: CommandServices;
  deduper: Deduper;
  outbound: SlackOutbound;
}): () => void {
  // Scheduled runs reach channels and DMs the same way, from the same moment on.
  const unregisterPlaces = registerSlackPlaces({ workspaceClients, adapter, services });
  const stopSweeping = keepFinishingOrphanedReplies({
    services,
    platform: 'slack',
    claim: (journalKey) => deduper.isFirstSighting(`orphan:${journalKey}`, orphanClaimTtlMs),
    surfaceAt: async ({ address, messages }) => {
      const parsed = slackReplyAddressSchema.safeParse(address);
      if (!parsed.success) return undefined;
      // The reply's own workspace's client: with OAuth installs, its installation's token.
      const { client } = await workspaceClients(parsed.data.teamId);
      return createOrphanedReplySurface({ client, outbound, address: parsed.data, messages });
    },
  });
  return () => {
    stopSweeping();
    unregisterPlaces();
  };
}

/**
 * HTTP mode is what runs when SLACK_APP_TOKEN is unset, also for an app made from the Socket Mode
 * manifest, which then never hears from Slack: the log says which mode, where, and how to match.
 */
function logHttpMode({
  logger,
  host,
  port,
}: {
  logger: Logger;
  host: string | undefined;
  port: number;
}): void {
  const url = `http://${host ?? '0.0.0.0'}:${port}${slackEventsPath}`;
  logger.info(
    { mode: 'http', url, port },
    `slack: HTTP mode (SLACK_APP_TOKEN is not set): listening at ${url}. Slack must reach this port as https://<your host>${slackEventsPath}, with request URLs set by the manifest of \`npm run slack-manifest -- --http https://<your host>${slackEventsPath}\`; for an app made from slack/manifest.json (Socket Mode), set SLACK_APP_TOKEN instead.`,
  );
}

async function stopApp(app: App, stopSweeping: () => void): Promise<void> {
  stopSweeping();
  await app.stop();
  reportPlatformConnection({ platform: 'slack', isConnected: false, state: 'stopped' });
}
