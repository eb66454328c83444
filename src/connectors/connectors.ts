import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Actor } from '../access/actor.ts';
import type { AuditLog } from '../audit/audit-log.ts';
import { type ConversationKey, placeOfConversation } from '../conversation/turn.ts';
import type { Logger } from '../log.ts';
import type { GuardedAgents } from '../net/guarded-agents.ts';
import type { KeyedLock } from '../state/keyed-lock.ts';
import type { Tool, ToolRunContext } from '../tools/tool.ts';
import type { ToolOutage } from '../tools/toolbox.ts';
import type { McpServerSettings } from '../tools/tools-file.ts';
import type { ConnectLinks } from './connect-links.ts';
import { connectLinkLifetimeMs, randomToken } from './connect-links.ts';
import { type Connection, type ConnectionOwner, type ConnectionStore, ownerKey } from './connection-store.ts';
import { createConnectorFetch } from './connector-fetch.ts';
import { createConnectorOAuthProvider, type PendingAuthorization } from './connector-oauth-provider.ts';
import { createConnectorSessions, httpUrlOf, isReconnectNeeded } from './connector-sessions.ts';
import {
  type BeginConnect,
  type ConnectorSettings,
  isConnectorServer,
  type TellPrivately,
} from './connector-settings.ts';
import { connectToolOf, reconnectNote, reportingReconnectsOf } from './connector-tools.ts';
import { answerQuestionWith, type ElicitationQuestions } from './elicitation-questions.ts';
import { type RevocationResult, revokeConnection } from './revoke-connection.ts';
import { readServerChallenge } from './server-challenge.ts';

/**
 * The person as the platform and the gate see them now, when the callback arrives (they may have
 * left, been blocked or lost their admin rights since they asked for the link).
 */
export type StandingCheck = (request: {
  userId: string;
  conversationKey: ConversationKey;
  needsAdmin: boolean;
}) => Promise<{ isAllowed: true } | { isAllowed: false; text: string }>;

/** Goes on with a person's request in its conversation, now that they connected `server`. */
export type ResumeAfterConnect = (request: {
  userId: string;
  conversationKey: ConversationKey;
  server: string;
}) => Promise<void>;

/** One of my connections, for /connections. */
export interface ConnectionListing {
  readonly server: string;
  readonly kind: 'person' | 'owner';
  readonly connection: Connection | undefined;
}

/**
 * Each person's (or place's) OAuth connections to the tools file's protected MCP servers: the
 * Connect link and its callback, the tools a turn may use as its asker, /connections and /forget me.
 */
export interface Connectors {
  readonly servers: readonly ConnectorSettings[];
  /**
   * The tools the asker's connections give on this turn, a Connect tool for each they lack, and the
   * connectors whose server is down now (the reply says so).
   */
  toolsFor(request: {
    actor: Actor;
    conversationKey: ConversationKey;
    /** Whether the place could give this person a tool of that server here; absent: every server. */
    mayOffer?: (server: string) => boolean;
  }): Promise<{ tools: readonly Tool[]; outages: readonly ToolOutage[]; notices: readonly string[] }>;
  /** A single-use Connect link for this asker and server, or why there is none. */
  beginConnect: BeginConnect;
  list(request: { actor: Actor; conversationKey: ConversationKey }): Promise<ConnectionListing[]>;
  disconnect(request: {
    actor: Actor;
    conversationKey: ConversationKey;
    server: string;
  }): Promise<{ result: RevocationResult | 'not-connected' } | { problem: string }>;
  /** /forget me: every connection of the person, revoked where the server can. */
  forgetPerson(request: { platform: string; userId: string }): Promise<number>;
  /** /export: which servers the person has connected, and since when; never a token. */
  exportPerson(request: {
    platform: string;
    userId: string;
  }): Promise<Array<{ server: string; connectedAt: string }>>;
  /** The callback's side: finishes an authorization (connect-routes.ts calls it). */
  finish(request: {
    state: string;
    code: string | undefined;
    error: string | undefined;
    browserSecret: string | undefined;
  }): Promise<{ status: number; text: string }>;
  /** The server a link would connect, without using the link up (the page before Continue). */
  peek(linkId: string): Promise<string | undefined>;
  /** The link opened: where the browser goes, and the secret its cookie keeps. */
  open(linkId: string): Promise<{ location: string; browserSecret: string } | undefined>;
  readonly redirectUrl: string;
  /** parley's Client ID Metadata Document, when it has one (an https PUBLIC_URL). */
  readonly clientMetadataUrl: string | undefined;
  /** Servers' questions waiting for their askers, when elicitation is on. */
  readonly questions: ElicitationQuestions | undefined;
  /** How the callback checks the person now; the command layer sets it once the platforms are known. */
  useStandingCheck(check: StandingCheck): void;
  /**
   * How the reply whose model sent a Connect link goes on once the person connected (in the process
   * that sent it); the command layer sets it. Unset: the person is told to ask again.
   */
  useResumeAfterConnect(resume: ResumeAfterConnect): void;
  close(): Promise<void>;
}

export interface ConnectorsOptions {
  readonly servers: readonly McpServerSettings[];
  readonly store: ConnectionStore;
  readonly links: ConnectLinks;
  readonly lock: KeyedLock;
  /** Where parley's HTTP server is reached from people's browsers (PUBLIC_URL). */
  readonly publicUrl: string;
  readonly audit: AuditLog | undefined;
  /**
   * The person as the platform and the gate see them now, when the callback arrives (they may have
   * left, been blocked or lost their admin rights since they asked for the link).
   */
  readonly standingNow?: StandingCheck;
  readonly clientVersion: string;
  readonly nowMs?: () => number;
  readonly agents?: GuardedAgents;
  /**
   * Origins trusted besides each server's own (an authorization server on the owner's network, a
   * test's on loopback), as GATEWAY_BASE_URL is: no https or public-address rule for them.
   */
  readonly trustedOrigins?: readonly string[];
  /**
   * Where parley's Client ID Metadata Document is served, when not PUBLIC_URL's own
   * (`/connectors/client-metadata.json`, https only).
   */
  readonly clientMetadataUrl?: string;
  /** Servers' questions to the asker mid-call (elicitation); absent, parley declares none. */
  readonly questions?: ElicitationQuestions;
  readonly logger: Logger;
}

export function createConnectors(options: ConnectorsOptions): Connectors {
  const { store, links, audit, logger } = options;
  const nowMs = options.nowMs ?? Date.now;
  const servers = options.servers.filter(isConnectorServer);
  const base = options.publicUrl.replace(/\/+$/, '');
  const redirectUrl = `${base}/connectors/callback`;
  // The SDK sends it as client_id where the authorization server takes metadata documents (CIMD); it must be https.
  const clientMetadataUrl =
    options.clientMetadataUrl ??
    (base.startsWith('https://') ? `${base}/connectors/client-metadata.json` : undefined);
  const waitingToBeTold = new Map<string, TellPrivately>();
  let resumeAfterConnect: ResumeAfterConnect | undefined;
  // What each owner's connector listed last, so a server that is down now is judged by its tools.
  const lastListed = new Map<string, readonly Tool[]>();
  // Until a platform can say who someone is now, nobody's callback is let through.
  let standingNow: StandingCheck =
    options.standingNow ??
    (async () => ({ isAllowed: false, text: 'parley cannot check who you are right now; try again later.' }));
  const fetchFor = (settings: McpServerSettings) =>
    createConnectorFetch({
      server: settings.name,
      serverUrl: httpUrlOf(settings),
      requestTimeoutMs: settings.deadlineMs + 30_000,
      ...(options.agents ? { agents: options.agents } : {}),
      ...(options.trustedOrigins ? { trustedOrigins: options.trustedOrigins } : {}),
    });
  const providerFor = (
    owner: ConnectionOwner,
    settings: McpServerSettings,
    connectedBy = { id: '', name: '' },
    pending?: PendingAuthorization,
  ) => {
    if (!isConnectorServer(settings)) throw new Error(`${settings.name} is not a connector`);
    return createConnectorOAuthProvider({
      server: settings.name,
      auth: settings.transport.auth,
      owner,
      store,
      redirectUrl,
      clientMetadataUrl,
      connectedBy,
      nowMs,
      ...(pending ? { pending } : {}),
    });
  };
  const sessions = createConnectorSessions({
    store,
    lock: options.lock,
    providerFor: (owner, settings) => providerFor(owner, settings),
    fetchFor,
    clientVersion: options.clientVersion,
    nowMs,
    ...(options.questions ? { answerQuestion: answerQuestionWith(options.questions) } : {}),
    logger,
  });
  const ownerOf = (
    settings: ConnectorSettings,
    actor: Actor,
    conversationKey: ConversationKey,
  ): ConnectionOwner => {
    const place = placeOfConversation(conversationKey);
    return settings.transport.auth.kind === 'person'
      ? { kind: 'person', platform: place.platform, userId: actor.id }
      : { kind: 'place', platform: place.platform, workspace: place.workspace };
  };
  const record = (
    request: { actor: Pick<Actor, 'id' | 'name'>; conversationKey: ConversationKey },
    what: string,
    result: 'done' | 'refused' | 'failed',
    server: string,
  ) => {
    const place = placeOfConversation(request.conversationKey);
    return audit
      ?.record({
        platform: place.platform,
        workspace: place.workspace,
        channel: place.channel,
        actor: { id: request.actor.id, name: request.actor.name },
        kind: 'connector',
        what,
        result,
        details: { server },
      })
      .catch((error: unknown) => logger.warn({ err: error }, 'could not record a connector deed'));
  };

  async function beginConnect({
    actor,
    conversationKey,
    server,
    scope,
    tellPrivately,
  }: Parameters<BeginConnect>[0]): ReturnType<BeginConnect> {
    const settings = servers.find((candidate) => candidate.name === server);
    if (!settings) return { problem: `There is no connector called ${server}.` };
    if (settings.transport.auth.kind === 'owner' && !actor.isAdmin) {
      await record(
        { actor, conversationKey },
        `connect ${server} for the place: not an admin`,
        'refused',
        server,
      );
      return { problem: `Only an admin can connect ${server} for everyone here.` };
    }
    const pending: PendingAuthorization = {
      state: randomToken(),
      codeVerifier: undefined,
      authorizationUrl: undefined,
    };
    const owner = ownerOf(settings, actor, conversationKey);
    try {
      const fetchFn = fetchFor(settings);
      const challenge = await readServerChallenge({
        serverUrl: settings.transport.url,
        fetchFn,
        clientVersion: options.clientVersion,
      });
      const result = await auth(providerFor(owner, settings, { id: actor.id, name: actor.name }, pending), {
        serverUrl: settings.transport.url,
        ...((scope ?? challenge.scope) ? { scope: scope ?? challenge.scope } : {}),
        ...(challenge.resourceMetadataUrl ? { resourceMetadataUrl: challenge.resourceMetadataUrl } : {}),
        fetchFn,
      });
      if (result !== 'REDIRECT' || !pending.authorizationUrl || !pending.codeVerifier) {
        throw new Error('the authorization server did not start an authorization');
      }
    } catch (error) {
      logger.warn({ err: error, server }, 'a connector authorization could not start');
      // What discovery found may be what failed: the next try looks again.
      await store.saveDiscoveryState(server, undefined);
      await record({ actor, conversationKey }, `connect ${server}: could not start`, 'failed', server);
      return { problem: `I could not reach ${server}'s sign-in right now; try again later.` };
    }
    const linkId = await links.create(
      {
        state: pending.state,
        server,
        owner,
        person: { id: actor.id, name: actor.name },
        conversationKey,
        codeVerifier: pending.codeVerifier,
        authorizationUrl: pending.authorizationUrl.href,
      },
      nowMs(),
    );
    if (tellPrivately) {
      waitingToBeTold.set(pending.state, tellPrivately);
      setTimeout(() => waitingToBeTold.delete(pending.state), connectLinkLifetimeMs).unref();
    }
    return { link: `${base}/connect/${linkId}` };
  }

  const hasConnection = async (settings: ConnectorSettings, context: ToolRunContext) =>
    (await store.get(ownerOf(settings, context.actor, context.conversationKey), settings.name)) !== undefined;
  const connectTool = (settings: ConnectorSettings, reason: 'not-connected' | 'expired') =>
    connectToolOf({ settings, reason, beginConnect });
  const reportingReconnects = (settings: ConnectorSettings, tools: readonly Tool[]) =>
    reportingReconnectsOf({ settings, tools, beginConnect, hasConnection });

  return {
    servers,
    redirectUrl,
    clientMetadataUrl,
    questions: options.questions,
    beginConnect,
    async toolsFor({ actor, conversationKey, mayOffer = () => true }) {
      const tools: Tool[] = [];
      const outages: ToolOutage[] = [];
      const notices: string[] = [];
      // A server switched off here is not reached at all (no session, no refresh) on this turn.
      for (const settings of servers.filter((candidate) => mayOffer(candidate.name))) {
        const owner = ownerOf(settings, actor, conversationKey);
        const key = `${ownerKey(owner)}:${settings.name}`;
        const connection = await store.get(owner, settings.name).catch((error: unknown) => {
          // A value sealed with a key parley no longer has (CONNECTOR_TOKENS_KEY changed without _OLD).
          logger.warn({ err: error, server: settings.name }, 'a connector token could not be opened');
          return undefined;
        });
        if (!connection) {
          tools.push(connectTool(settings, 'not-connected'));
          continue;
        }
        try {
          const listed = reportingReconnects(settings, await sessions.toolsOf({ owner, settings }));
          lastListed.set(key, listed);
          tools.push(...listed);
        } catch (error) {
          if (isReconnectNeeded(error)) {
            // A token the server will not take is no connection: kept, it would be tried every turn.
            await store.delete(owner, settings.name);
            logger.info(
              { server: settings.name },
              'a connector token was refused; the person is asked to connect again',
            );
            notices.push(reconnectNote(settings.name));
            tools.push(connectTool(settings, 'expired'));
            continue;
          }
          // The server is down: the reply says its tools are unavailable; the next turn tries again.
          logger.warn({ err: error, server: settings.name }, 'a connector server could not be reached');
          outages.push({ source: settings.name, lastTools: lastListed.get(key) ?? [] });
        }
      }
      return { tools, outages, notices };
    },
    async list({ actor, conversationKey }) {
      return Promise.all(
        servers.map(async (settings) => ({
          server: settings.name,
          kind: settings.transport.auth.kind,
          connection: await store.get(ownerOf(settings, actor, conversationKey), settings.name),
        })),
      );
    },
    async disconnect({ actor, conversationKey, server }) {
      const settings = servers.find((candidate) => candidate.name === server);
      if (!settings) return { problem: `There is no connector called ${server}.` };
      if (settings.transport.auth.kind === 'owner' && !actor.isAdmin) {
        await record(
          { actor, conversationKey },
          `disconnect ${server} for the place: not an admin`,
          'refused',
          server,
        );
        return { problem: `Only an admin can disconnect ${server} for everyone here.` };
      }
      const owner = ownerOf(settings, actor, conversationKey);
      const result = await removeConnection(owner, settings);
      if (result !== 'not-connected')
        await record({ actor, conversationKey }, `disconnect ${server} (${result})`, 'done', server);
      return { result };
    },
    async forgetPerson({ platform, userId }) {
      let removed = 0;
      for (const settings of servers) {
        if (settings.transport.auth.kind !== 'person') continue;
        const result = await removeConnection({ kind: 'person', platform, userId }, settings);
        if (result !== 'not-connected') removed += 1;
      }
      return removed;
    },
    async exportPerson({ platform, userId }) {
      const owner: ConnectionOwner = { kind: 'person', platform, userId };
      const personServers = servers.filter((settings) => settings.transport.auth.kind === 'person');
      const found = await store.listFor(
        owner,
        personServers.map((settings) => settings.name),
      );
      return [...found].map(([server, connection]) => ({
        server,
        connectedAt: new Date(connection.connectedAtMs).toISOString(),
      }));
    },
    peek: (linkId) => links.peek(linkId, nowMs()),
    async open(linkId) {
      const opened = await links.open(linkId, nowMs());
      return opened && { location: opened.pending.authorizationUrl, browserSecret: opened.browserSecret };
    },
    async finish({ state, code, error, browserSecret }) {
      const taken = await links.take(state, browserSecret, nowMs());
      if (!taken)
        return {
          status: 400,
          text: 'This sign-in has expired or was already used. Ask for a new Connect link in the chat.',
        };
      const { pending } = taken;
      const settings = servers.find((candidate) => candidate.name === pending.server);
      const who = { actor: pending.person, conversationKey: pending.conversationKey };
      const tell = waitingToBeTold.get(state);
      waitingToBeTold.delete(state);
      if (!taken.isSameBrowser) {
        await record(
          who,
          `connect ${pending.server}: callback from another browser than the link's`,
          'refused',
          pending.server,
        );
        return {
          status: 403,
          text: 'This sign-in did not start in this browser. Open your own Connect link from the chat.',
        };
      }
      if (!settings) return { status: 400, text: 'That connector is no longer in parley’s tools file.' };
      if (error !== undefined || code === undefined) {
        await record(
          who,
          `connect ${pending.server}: the authorization server said ${oauthErrorCode(error)}`,
          'failed',
          pending.server,
        );
        return {
          status: 400,
          text: `${pending.server} did not connect: the sign-in was cancelled or refused.`,
        };
      }
      const standing = await standingNow({
        userId: pending.person.id,
        conversationKey: pending.conversationKey,
        needsAdmin: pending.owner.kind === 'place',
      });
      if (!standing.isAllowed) {
        await record(who, `connect ${pending.server}: refused at the callback`, 'refused', pending.server);
        return { status: 403, text: standing.text };
      }
      const provider = providerFor(pending.owner, settings, pending.person, {
        state,
        codeVerifier: pending.codeVerifier,
        authorizationUrl: undefined,
      });
      try {
        const result = await auth(provider, {
          serverUrl: settings.transport.url,
          authorizationCode: code,
          fetchFn: fetchFor(settings),
        });
        if (result !== 'AUTHORIZED') throw new Error(`the code exchange ended in ${result}`);
      } catch (exchangeError) {
        logger.warn({ err: exchangeError, server: pending.server }, 'a connector code exchange failed');
        await record(who, `connect ${pending.server}: the code exchange failed`, 'failed', pending.server);
        return {
          status: 502,
          text: `${pending.server} did not connect: its authorization server refused. Ask for a new link and try again.`,
        };
      }
      await sessions.end(pending.owner, pending.server);
      await record(who, `connect ${pending.server}`, 'done', pending.server);
      if (tell) {
        await tell(`✅ ${pending.server} is connected.`).catch(() => {});
        // The reply that sent the link goes on, now with the connection (the command layer's hook
        // asks the platform and the gate again, as for any turn); not waited for by the browser.
        void resumeAfterConnect?.({
          userId: pending.person.id,
          conversationKey: pending.conversationKey,
          server: pending.server,
        }).catch((error: unknown) =>
          logger.warn({ err: error }, 'the reply could not go on after connecting'),
        );
      }
      return {
        status: 200,
        text: `${pending.server} is connected. You can close this tab and go back to the chat.`,
      };
    },
    useStandingCheck(check) {
      standingNow = check;
    },
    useResumeAfterConnect(resume) {
      resumeAfterConnect = resume;
    },
    close: () => sessions.close(),
  };

  async function removeConnection(
    owner: ConnectionOwner,
    settings: ConnectorSettings,
  ): Promise<RevocationResult | 'not-connected'> {
    const connection = await store.get(owner, settings.name);
    if (!connection) return 'not-connected';
    await store.delete(owner, settings.name);
    await sessions.end(owner, settings.name);
    const clientInformation =
      settings.transport.auth.clientId === undefined
        ? await store.clientInformation(settings.name)
        : {
            client_id: settings.transport.auth.clientId,
            ...(settings.transport.auth.clientSecret
              ? { client_secret: settings.transport.auth.clientSecret }
              : {}),
          };
    return revokeConnection({
      serverUrl: settings.transport.url,
      connection,
      clientInformation,
      fetchFn: fetchFor(settings),
    });
  }
}

/**
 * The error of an authorization response (RFC 6749 §4.1.2.1) as the audit trail keeps it: one of
 * its codes (lowercase and `_`), never free text a server chose.
 */
function oauthErrorCode(error: string | undefined): string {
  if (error === undefined) return 'no code and no error';
  return /^[a-z_]{1,40}$/.test(error) ? error : 'an error that is not an OAuth code';
}
