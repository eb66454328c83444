import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { ConnectorAuth } from '../tools/tools-file.ts';
import {
  type Connection,
  type ConnectionOwner,
  type ConnectionStore,
  connectionOf,
} from './connection-store.ts';

/**
 * The connection cannot be used and only its owner can make a new one: the authorization server
 * refused the refresh, or never gave one. Said in the reply as a "reconnect" note.
 */
export class ReconnectNeededError extends Error {
  override readonly name = 'ReconnectNeededError';
  readonly server: string;
  /**
   * The scope the server asked for when the token lacked it (a 403 `insufficient_scope`, step-up):
   * the new authorization asks for it. Undefined when the token is simply gone.
   */
  readonly scope: string | undefined;
  constructor(server: string, scope?: string) {
    super(`the connection to ${server} needs to be made again`);
    this.server = server;
    this.scope = scope;
  }
}

/** What parley says of itself to an authorization server, the same for every connector. */
export function parleyClientMetadata({
  redirectUrl,
  auth,
}: {
  redirectUrl: string;
  auth: ConnectorAuth;
}): OAuthClientMetadata {
  return {
    client_name: 'parley',
    redirect_uris: [redirectUrl],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: auth.clientSecret === undefined ? 'none' : 'client_secret_basic',
    ...(auth.scope === undefined ? {} : { scope: auth.scope }),
  };
}

/** An authorization being started: the state and PKCE verifier the SDK makes, kept for the callback. */
export interface PendingAuthorization {
  readonly state: string;
  codeVerifier: string | undefined;
  authorizationUrl: URL | undefined;
}

/**
 * The SDK's `OAuthClientProvider` for one owner and one server: the SDK does discovery, client
 * registration (pre-registered, Client ID Metadata Document, or dynamic), PKCE, resource
 * indicators, the code exchange and refresh; this only keeps what it hands over. With `pending`
 * it starts or finishes an authorization (the Connect link, the callback); without, it serves a
 * stored connection, and a flow that would need the person's browser fails with ReconnectNeededError.
 */
export function createConnectorOAuthProvider({
  server,
  auth,
  owner,
  store,
  redirectUrl,
  clientMetadataUrl,
  connectedBy,
  nowMs,
  pending,
}: {
  server: string;
  auth: ConnectorAuth;
  owner: ConnectionOwner;
  store: ConnectionStore;
  redirectUrl: string;
  /** parley's Client ID Metadata Document, where PUBLIC_URL is https. */
  clientMetadataUrl: string | undefined;
  connectedBy: Connection['connectedBy'];
  nowMs: () => number;
  pending?: PendingAuthorization;
}): OAuthClientProvider {
  const preRegistered: OAuthClientInformationMixed | undefined =
    auth.clientId === undefined
      ? undefined
      : {
          client_id: auth.clientId,
          ...(auth.clientSecret === undefined ? {} : { client_secret: auth.clientSecret }),
        };
  return {
    get redirectUrl() {
      return redirectUrl;
    },
    ...(clientMetadataUrl === undefined ? {} : { clientMetadataUrl }),
    get clientMetadata() {
      return parleyClientMetadata({ redirectUrl, auth });
    },
    // Without a pending authorization the SDK may still start one (step-up after a 403, a refused
    // refresh): it runs up to the redirect, which says what it would ask for, and ends there.
    state: () => pending?.state ?? 'not-started',
    clientInformation: async () => preRegistered ?? (await store.clientInformation(server)),
    saveClientInformation: async (information) => {
      if (!preRegistered) await store.saveClientInformation(server, information);
    },
    tokens: async (): Promise<OAuthTokens | undefined> => {
      // A new authorization starts from nothing: an old token of this owner is not refreshed instead.
      if (pending) return undefined;
      return (await store.get(owner, server))?.tokens;
    },
    saveTokens: async (tokens) => {
      const previous = pending ? undefined : await store.get(owner, server);
      await store.save(
        owner,
        server,
        connectionOf({
          tokens: {
            ...tokens,
            // A refresh that returns no new refresh token leaves the old one valid (RFC 6749 §6).
            ...(tokens.refresh_token === undefined && previous?.tokens.refresh_token !== undefined
              ? { refresh_token: previous.tokens.refresh_token }
              : {}),
          },
          nowMs: nowMs(),
          connectedBy: previous?.connectedBy ?? connectedBy,
          connectedAtMs: previous?.connectedAtMs ?? nowMs(),
        }),
      );
    },
    redirectToAuthorization: (authorizationUrl) => {
      if (!pending) {
        throw new ReconnectNeededError(server, authorizationUrl.searchParams.get('scope') ?? undefined);
      }
      pending.authorizationUrl = authorizationUrl;
    },
    saveCodeVerifier: (codeVerifier) => {
      if (pending) pending.codeVerifier = codeVerifier;
    },
    codeVerifier: () => {
      if (pending?.codeVerifier === undefined) throw new ReconnectNeededError(server);
      return pending.codeVerifier;
    },
    discoveryState: () => store.discoveryState(server),
    saveDiscoveryState: (state) => store.saveDiscoveryState(server, state),
    invalidateCredentials: async (scope) => {
      if (scope === 'all' || scope === 'discovery') await store.saveDiscoveryState(server, undefined);
      if (!pending && (scope === 'all' || scope === 'tokens')) await store.delete(owner, server);
    },
  };
}
