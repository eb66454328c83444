import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { apiUser } from './api-objects.ts';
import { memberPermissionsOf } from './interaction-payloads.ts';
import type { World } from './world.ts';

/** The application's OAuth2 client, as the developer portal shows it. */
export interface FakeOAuthClient {
  readonly clientId: string;
  readonly clientSecret: string;
}

/** A code handed out by the authorize page: whose, for which redirect and PKCE challenge. */
interface IssuedCode {
  readonly userId: string;
  readonly redirectUri: string;
  readonly codeChallenge: string;
  readonly scopes: readonly string[];
  readonly expiresAtMs: number;
}

/** The OAuth2 side of the fake: its client, who the authorize page approves as, what it was asked. */
export interface FakeOAuth {
  readonly client: FakeOAuthClient;
  /** Who the authorize page signs in as (the starting user until changed): the person "clicking Authorize". */
  approveAs(userId: string): void;
  /** Each authorize and token request's path and outcome, for tests. */
  readonly requests: Array<{ readonly path: string; readonly status: number; readonly error?: string }>;
  /** Answers the OAuth2 routes; false for every other request (the REST API's). */
  serve(request: IncomingMessage, response: ServerResponse, url: URL): boolean;
}

// discord-api-docs topics/oauth2.mdx, "Authorization Code Grant": codes are exchanged once; the
// docs give no lifetime, RFC 6749 §4.1.2 recommends at most ten minutes.
const codeLifetimeMs = 10 * 60_000;

/**
 * Discord's OAuth2 authorization code grant, as topics/oauth2.mdx describes it: the authorize page at
 * /oauth2/authorize (the fake approves at once, as the person clicking "Authorize"), the token URL at
 * /api/oauth2/token ("will only accept a content type of application/x-www-form-urlencoded", client
 * authentication by HTTP Basic or client_id/client_secret in the body), and with the Bearer token
 * GET /users/@me (scope identify) and GET /users/@me/guilds (scope guilds: partial guilds with
 * `owner` and `permissions`, resources/user.mdx "Get Current User Guilds"). PKCE is checked as
 * RFC 7636 §4.6 says (S256 of the verifier equals the challenge), which Discord supports for public
 * and confidential clients alike.
 */
export function createFakeOAuth({
  world,
  startingUserId,
}: {
  world: World;
  startingUserId: string;
}): FakeOAuth {
  const client: FakeOAuthClient = {
    clientId: world.bot.id,
    clientSecret: randomBytes(16).toString('hex'),
  };
  let approvedUserId = startingUserId;
  const codes = new Map<string, IssuedCode>();
  const accessTokens = new Map<string, { userId: string; scopes: readonly string[] }>();
  const requests: FakeOAuth['requests'] = [];

  const answer = (response: ServerResponse, path: string, status: number, body: unknown, error?: string) => {
    requests.push({ path, status, ...(error === undefined ? {} : { error }) });
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  };
  // RFC 6749 §5.2: a token error is a 400 with `error` (and a description).
  const tokenError = (response: ServerResponse, error: string, description: string) =>
    answer(
      response,
      '/api/oauth2/token',
      error === 'invalid_client' ? 401 : 400,
      { error, error_description: description },
      error,
    );

  function authorize(response: ServerResponse, url: URL): void {
    const query = url.searchParams;
    const redirectUri = query.get('redirect_uri');
    const problem =
      query.get('client_id') !== client.clientId
        ? 'unknown client_id'
        : query.get('response_type') !== 'code'
          ? 'response_type must be code'
          : redirectUri === null
            ? 'redirect_uri is required'
            : query.get('code_challenge_method') !== 'S256' || !query.get('code_challenge')
              ? 'PKCE with S256 is required by this fake'
              : undefined;
    if (problem !== undefined || redirectUri === null) {
      answer(response, '/oauth2/authorize', 400, { message: problem }, problem);
      return;
    }
    const code = randomBytes(16).toString('hex');
    codes.set(code, {
      userId: approvedUserId,
      redirectUri,
      codeChallenge: query.get('code_challenge') ?? '',
      scopes: (query.get('scope') ?? '').split(' ').filter(Boolean),
      expiresAtMs: Date.now() + codeLifetimeMs,
    });
    // "On acceptance, they will be redirected to your redirect_uri, which will contain an additional
    // querystring parameter, code. state will also be returned if previously sent."
    const back = new URL(redirectUri);
    back.searchParams.set('code', code);
    const state = query.get('state');
    if (state !== null) back.searchParams.set('state', state);
    requests.push({ path: '/oauth2/authorize', status: 302 });
    response.writeHead(302, { location: back.toString() });
    response.end();
  }

  async function token(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (!(request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
      tokenError(response, 'invalid_request', 'the token URL accepts only application/x-www-form-urlencoded');
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
    const basic = /^Basic (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    const [basicId, basicSecret] =
      basic === undefined ? [] : Buffer.from(basic, 'base64').toString('utf8').split(':');
    const clientId = decodeURIComponent(basicId ?? form.get('client_id') ?? '');
    const clientSecret = decodeURIComponent(basicSecret ?? form.get('client_secret') ?? '');
    if (clientId !== client.clientId || clientSecret !== client.clientSecret) {
      tokenError(response, 'invalid_client', 'client authentication failed');
      return;
    }
    if (form.get('grant_type') !== 'authorization_code') {
      tokenError(response, 'unsupported_grant_type', 'only authorization_code here');
      return;
    }
    const code = form.get('code') ?? '';
    const issued = codes.get(code);
    codes.delete(code);
    if (issued === undefined || issued.expiresAtMs < Date.now()) {
      tokenError(response, 'invalid_grant', 'unknown, used or expired code');
      return;
    }
    // RFC 6749 §4.1.3: redirect_uri must be identical to the one of the authorization request.
    if (form.get('redirect_uri') !== issued.redirectUri) {
      tokenError(response, 'invalid_grant', 'redirect_uri does not match');
      return;
    }
    const challenge = createHash('sha256')
      .update(form.get('code_verifier') ?? '')
      .digest('base64url');
    if (challenge !== issued.codeChallenge) {
      tokenError(response, 'invalid_grant', 'code_verifier does not match the code_challenge');
      return;
    }
    const accessToken = randomBytes(16).toString('hex');
    accessTokens.set(accessToken, { userId: issued.userId, scopes: issued.scopes });
    // topics/oauth2.mdx, "Access Token Response".
    answer(response, '/api/oauth2/token', 200, {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: 604_800,
      refresh_token: randomBytes(16).toString('hex'),
      scope: issued.scopes.join(' '),
    });
  }

  function bearerRoute(request: IncomingMessage, response: ServerResponse, path: string): void {
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
    const grant = accessTokens.get(token);
    if (grant === undefined) {
      answer(response, path, 401, { message: '401: Unauthorized', code: 0 });
      return;
    }
    const user = world.users.get(grant.userId);
    const needed = path === '/users/@me' ? 'identify' : 'guilds';
    if (user === undefined || !grant.scopes.includes(needed)) {
      answer(response, path, 403, { message: 'Missing Access', code: 50001 });
      return;
    }
    if (path === '/users/@me') {
      answer(response, path, 200, apiUser(user));
      return;
    }
    const guilds = [...world.guilds.values()]
      .filter((guild) => guild.memberIds.includes(user.id))
      .map((guild) => ({
        id: guild.id,
        name: guild.name,
        icon: null,
        owner: guild.ownerId === user.id,
        permissions: memberPermissionsOf(guild, user.id).toString(),
        features: [],
      }));
    answer(response, path, 200, guilds);
  }

  return {
    client,
    requests,
    approveAs(userId) {
      approvedUserId = userId;
    },
    serve(request, response, url) {
      if (request.method === 'GET' && url.pathname === '/oauth2/authorize') {
        authorize(response, url);
        return true;
      }
      if (request.method === 'POST' && url.pathname === '/api/oauth2/token') {
        token(request, response).catch(() => response.destroy());
        return true;
      }
      // Only a Bearer (a person's) token reaches these here; the bot's token goes on to the REST API.
      const isBearer = (request.headers.authorization ?? '').startsWith('Bearer ');
      const path = url.pathname.replace(/^\/api\/v10/, '');
      if (isBearer && request.method === 'GET' && (path === '/users/@me' || path === '/users/@me/guilds')) {
        bearerRoute(request, response, path);
        return true;
      }
      return false;
    },
  };
}
