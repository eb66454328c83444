import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import { InvalidGrantError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import type {
  AuthorizationParams,
  OAuthServerProvider,
} from '@modelcontextprotocol/sdk/server/auth/provider.js';
import {
  getOAuthProtectedResourceMetadataUrl,
  mcpAuthRouter,
} from '@modelcontextprotocol/sdk/server/auth/router.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import express from 'express';

/**
 * An MCP server behind OAuth, as the MCP authorization specification describes one, on the official
 * SDK's server pieces over a real socket: its protected resource metadata (RFC 9728) and
 * authorization server (RFC 8414 metadata, dynamic registration, PKCE, refresh with rotation,
 * RFC 7009 revocation) from `mcpAuthRouter`, its /mcp behind `requireBearerAuth` with the resource
 * checked. Its one tool, `whoami`, answers with the account the token was issued for, so a test
 * sees whose token a call carried. The authorization page signs in `nextAccount` at once (the
 * person's consent, in a browser, is not what is tested).
 */
export interface OAuthMcpServer {
  /** The MCP endpoint, for the tools file. */
  readonly url: string;
  readonly origin: string;
  /** Who the next authorization signs in. */
  nextAccount: string;
  /** The accounts whose tokens reached `whoami`, in order. */
  readonly calls: string[];
  /** How many refresh grants it answered. */
  refreshCount: number;
  /** Tokens revoked through its revocation endpoint. */
  readonly revoked: string[];
  /** Access tokens it issued, by account. */
  readonly accessTokensOf: (account: string) => string[];
  /** What `book_table` got back from each question it asked the client (elicitation). */
  readonly elicited: unknown[];
  closeSessions(): Promise<void>;
  /** Forgets every token of the account, as a revocation on the service's own side would. */
  revokeAllOf(account: string): void;
  close(): Promise<void>;
}

export interface OAuthMcpServerOptions {
  /** Seconds each access token lasts. */
  readonly accessTokenSeconds?: number;
  /** What the protected resource metadata says instead of the truth (a bad server). */
  readonly resourceMetadataOverride?: (truth: {
    resource: string;
    authorizationServer: string;
  }) => Record<string, unknown>;
  /** Issues tokens for this resource instead of the one asked for (a confused authorization server). */
  readonly issueForResource?: string;
}

interface Grant {
  readonly account: string;
  readonly clientId: string;
  readonly resource: string | undefined;
  readonly scopes: string[];
}

/**
 * The server's tools: `whoami` answers with the token's account; `book_table` asks the person how
 * many people and when (`elicitation/create`) and answers with what came back.
 */
function createTestMcpServer(state: OAuthMcpServer): McpServer {
  const mcp = new McpServer({ name: 'oauth-test-server', version: '1.0.0' });
  mcp.registerTool(
    'whoami',
    { description: 'Says whose account this call acts as.', annotations: { readOnlyHint: true } },
    async (extra) => {
      const account = String(extra.authInfo?.extra?.account ?? 'unknown');
      state.calls.push(account);
      return { content: [{ type: 'text', text: `acting as ${account}` }] };
    },
  );
  mcp.registerTool(
    'book_table',
    { description: 'Books a table, asking for the details.', annotations: { readOnlyHint: true } },
    async () => {
      const answer = await mcp.server.elicitInput({
        message: 'How many people, and when?',
        requestedSchema: {
          type: 'object',
          properties: {
            people: { type: 'integer', title: 'People', minimum: 1, maximum: 12 },
            time: { type: 'string', title: 'Time', enum: ['19:00', '20:00'] },
            vegetarian: { type: 'boolean', title: 'Vegetarian', default: false },
          },
          required: ['people', 'time'],
        },
      });
      state.elicited.push(answer);
      return { content: [{ type: 'text', text: `booking: ${JSON.stringify(answer)}` }] };
    },
  );
  return mcp;
}

export async function startOAuthMcpServer(options: OAuthMcpServerOptions = {}): Promise<OAuthMcpServer> {
  const app = express();
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  const mcpUrl = `${origin}/mcp`;
  const clients = new Map<string, OAuthClientInformationFull>();
  const codes = new Map<string, { grant: Grant; params: AuthorizationParams }>();
  const accessTokens = new Map<string, Grant & { expiresAtMs: number }>();
  const refreshTokens = new Map<string, Grant>();
  const seconds = options.accessTokenSeconds ?? 3_600;
  const state: OAuthMcpServer = {
    url: mcpUrl,
    origin,
    nextAccount: 'nobody',
    calls: [],
    refreshCount: 0,
    revoked: [],
    accessTokensOf: (account) =>
      [...accessTokens.entries()].filter(([, grant]) => grant.account === account).map(([token]) => token),
    revokeAllOf(account) {
      for (const [token, grant] of accessTokens) if (grant.account === account) accessTokens.delete(token);
      for (const [token, grant] of refreshTokens) if (grant.account === account) refreshTokens.delete(token);
    },
    elicited: [],
    closeSessions: async () => {},
    close: async () => {
      await state.closeSessions();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
  const issue = (grant: Grant): OAuthTokens => {
    const accessToken = `access-${randomUUID()}`;
    const refreshToken = `refresh-${randomUUID()}`;
    const issued = { ...grant, resource: options.issueForResource ?? grant.resource };
    accessTokens.set(accessToken, { ...issued, expiresAtMs: Date.now() + seconds * 1_000 });
    refreshTokens.set(refreshToken, issued);
    return {
      access_token: accessToken,
      token_type: 'bearer',
      expires_in: seconds,
      refresh_token: refreshToken,
    };
  };
  const clientsStore: OAuthRegisteredClientsStore = {
    getClient: async (clientId) => clients.get(clientId),
    registerClient: async (client) => {
      const full = { ...client, client_id: `client-${randomUUID()}` } as OAuthClientInformationFull;
      clients.set(full.client_id, full);
      return full;
    },
  };
  const provider: OAuthServerProvider = {
    clientsStore,
    async authorize(client, params, response) {
      const code = `code-${randomUUID()}`;
      codes.set(code, {
        grant: {
          account: state.nextAccount,
          clientId: client.client_id,
          resource: params.resource?.href,
          scopes: params.scopes ?? [],
        },
        params,
      });
      const target = new URL(params.redirectUri);
      target.searchParams.set('code', code);
      if (params.state !== undefined) target.searchParams.set('state', params.state);
      response.redirect(target.href);
    },
    async challengeForAuthorizationCode(_client, code) {
      const found = codes.get(code);
      if (!found) throw new InvalidGrantError('unknown code');
      return found.params.codeChallenge;
    },
    async exchangeAuthorizationCode(client, code) {
      const found = codes.get(code);
      // Single use, as RFC 6749 §4.1.2 requires.
      codes.delete(code);
      if (!found || found.grant.clientId !== client.client_id) throw new InvalidGrantError('unknown code');
      return issue(found.grant);
    },
    async exchangeRefreshToken(client, refreshToken) {
      const grant = refreshTokens.get(refreshToken);
      if (!grant || grant.clientId !== client.client_id) throw new InvalidGrantError('unknown refresh token');
      // Rotation (OAuth 2.1 §4.3.1): the old refresh token is spent.
      refreshTokens.delete(refreshToken);
      state.refreshCount += 1;
      return issue(grant);
    },
    async verifyAccessToken(token): Promise<AuthInfo> {
      const grant = accessTokens.get(token);
      if (!grant || grant.expiresAtMs < Date.now()) throw new InvalidTokenError('unknown or expired token');
      return {
        token,
        clientId: grant.clientId,
        scopes: grant.scopes,
        expiresAt: Math.floor(grant.expiresAtMs / 1_000),
        ...(grant.resource === undefined ? {} : { resource: new URL(grant.resource) }),
        extra: { account: grant.account },
      };
    },
    async revokeToken(_client, request) {
      state.revoked.push(request.token);
      const grant = refreshTokens.get(request.token) ?? accessTokens.get(request.token);
      if (grant) state.revokeAllOf(grant.account);
    },
  };
  const resourceMetadataPath = new URL(getOAuthProtectedResourceMetadataUrl(new URL(mcpUrl))).pathname;
  if (options.resourceMetadataOverride) {
    const body = options.resourceMetadataOverride({ resource: mcpUrl, authorizationServer: `${origin}/` });
    app.get(resourceMetadataPath, (_request, response) => {
      response.json(body);
    });
  }
  app.use(
    mcpAuthRouter({
      provider,
      issuerUrl: new URL(`${origin}/`),
      resourceServerUrl: new URL(mcpUrl),
      scopesSupported: ['tools'],
      // The test's many requests from one address are not an attack.
      authorizationOptions: { rateLimit: false },
      tokenOptions: { rateLimit: false },
      clientRegistrationOptions: { rateLimit: false },
      revocationOptions: { rateLimit: false },
    }),
  );
  const bearer = requireBearerAuth({
    verifier: provider,
    resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(new URL(mcpUrl)),
    expectedResource: new URL(mcpUrl),
  });
  // Sessions, as the SDK's stateful example keeps them: a question to the client (elicitation) is
  // answered in a later POST of the same session.
  const transports = new Map<string, StreamableHTTPServerTransport>();
  app.post('/mcp', express.json(), bearer, async (request, response) => {
    const sessionId = request.header('mcp-session-id');
    const known = sessionId === undefined ? undefined : transports.get(sessionId);
    if (known) {
      await known.handleRequest(request, response, request.body);
      return;
    }
    const mcp = createTestMcpServer(state);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        transports.set(id, transport);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) transports.delete(transport.sessionId);
    };
    await mcp.connect(transport);
    await transport.handleRequest(request, response, request.body);
  });
  const bySession = async (request: express.Request, response: express.Response) => {
    const transport = transports.get(request.header('mcp-session-id') ?? '');
    if (!transport) {
      response.status(400).end();
      return;
    }
    await transport.handleRequest(request, response);
  };
  app.get('/mcp', bearer, bySession);
  app.delete('/mcp', bearer, bySession);
  state.closeSessions = async () => {
    for (const transport of transports.values()) await transport.close();
  };
  return state;
}
