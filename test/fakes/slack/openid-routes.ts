import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBodyBytes, sendJson } from './http-io.ts';
import type { Directory, Workspace } from './workspace.ts';

/** The Slack app's OAuth client, as its settings page shows it. */
export interface FakeOpenIdClient {
  readonly clientId: string;
  readonly clientSecret: string;
}

/** "Sign in with Slack" on the fake: its client, who the authorize page approves as, what was asked. */
export interface FakeOpenId {
  readonly client: FakeOpenIdClient;
  /** The person "clicking Allow" on the authorize page. */
  approveAs(userId: string): void;
  readonly requests: Array<{ readonly path: string; readonly ok: boolean; readonly error?: string }>;
  /** Answers the OpenID Connect routes; false for every other request. */
  serve(request: IncomingMessage, response: ServerResponse, path: string): Promise<boolean>;
}

interface IssuedCode {
  readonly userId: string;
  readonly redirectUri: string;
  readonly nonce: string | undefined;
  readonly expiresAtMs: number;
}

// docs.slack.dev "Sign in with Slack": the code "expires after 10 minutes" and is exchanged once.
const codeLifetimeMs = 10 * 60_000;

/** An ID token as Slack's token method returns it: a JWT whose claims are read, here unsigned. */
function idTokenOf(claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'none', typ: 'JWT' })}.${part(claims)}.`;
}

/**
 * Slack's OpenID Connect sign-in ("Sign in with Slack", docs.slack.dev; node-slack-sdk's
 * examples/openid-connect and its OpenIDConnect* request and response types): the authorize page at
 * /openid/connect/authorize (response_type=code, scope with `openid`, the state and nonce handed
 * back), `openid.connect.token` (client_id and client_secret in the body or as HTTP Basic, the code
 * and the same redirect_uri; answers `ok` with access_token and id_token, whose claims carry the
 * nonce), and `openid.connect.userInfo` with the person's token (sub, https://slack.com/user_id,
 * https://slack.com/team_id, name). Failures are Slack's `{ ok: false, error }` with HTTP 200.
 */
export function createFakeOpenId({
  workspace,
  directory,
  origin,
}: {
  workspace: Workspace;
  directory: Directory;
  origin: () => string;
}): FakeOpenId {
  const client: FakeOpenIdClient = {
    clientId: `${Date.now()}.${randomBytes(4).toString('hex')}`,
    clientSecret: randomBytes(16).toString('hex'),
  };
  let approvedUserId = '';
  const codes = new Map<string, IssuedCode>();
  const accessTokens = new Map<string, string>();
  const requests: FakeOpenId['requests'] = [];
  const answer = (response: ServerResponse, path: string, body: Record<string, unknown>) => {
    requests.push({
      path,
      ok: body.ok === true,
      ...(typeof body.error === 'string' ? { error: body.error } : {}),
    });
    sendJson(response, 200, body);
  };

  function authorize(response: ServerResponse, url: URL): void {
    const query = url.searchParams;
    const redirectUri = query.get('redirect_uri');
    const scopes = (query.get('scope') ?? '').split(/[ ,]/);
    const problem =
      query.get('client_id') !== client.clientId
        ? 'invalid_client_id'
        : query.get('response_type') !== 'code' || !scopes.includes('openid')
          ? 'invalid_scope'
          : redirectUri === null || approvedUserId === ''
            ? 'bad_redirect_uri'
            : undefined;
    if (problem !== undefined || redirectUri === null) {
      answer(response, '/openid/connect/authorize', { ok: false, error: problem });
      return;
    }
    const code = randomBytes(16).toString('hex');
    codes.set(code, {
      userId: approvedUserId,
      redirectUri,
      nonce: query.get('nonce') ?? undefined,
      expiresAtMs: Date.now() + codeLifetimeMs,
    });
    const back = new URL(redirectUri);
    back.searchParams.set('code', code);
    const state = query.get('state');
    if (state !== null) back.searchParams.set('state', state);
    requests.push({ path: '/openid/connect/authorize', ok: true });
    response.writeHead(302, { location: back.toString() });
    response.end();
  }

  async function token(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const form = new URLSearchParams((await readBodyBytes(request)).toString('utf8'));
    const basic = /^Basic (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    const [basicId, basicSecret] =
      basic === undefined ? [] : Buffer.from(basic, 'base64').toString('utf8').split(':');
    const clientId = decodeURIComponent(basicId ?? form.get('client_id') ?? '');
    const clientSecret = decodeURIComponent(basicSecret ?? form.get('client_secret') ?? '');
    const path = '/api/openid.connect.token';
    if (clientId !== client.clientId)
      return answer(response, path, { ok: false, error: 'invalid_client_id' });
    if (clientSecret !== client.clientSecret)
      return answer(response, path, { ok: false, error: 'bad_client_secret' });
    const code = form.get('code') ?? '';
    const issued = codes.get(code);
    codes.delete(code);
    if (issued === undefined || issued.expiresAtMs < Date.now()) {
      return answer(response, path, { ok: false, error: 'invalid_code' });
    }
    if (form.get('redirect_uri') !== issued.redirectUri) {
      return answer(response, path, { ok: false, error: 'bad_redirect_uri' });
    }
    const accessToken = `xoxp-${randomBytes(12).toString('hex')}`;
    accessTokens.set(accessToken, issued.userId);
    answer(response, path, {
      ok: true,
      access_token: accessToken,
      token_type: 'Bearer',
      id_token: idTokenOf({
        iss: 'https://slack.com',
        sub: issued.userId,
        aud: client.clientId,
        ...(issued.nonce === undefined ? {} : { nonce: issued.nonce }),
        'https://slack.com/user_id': issued.userId,
        'https://slack.com/team_id': workspace.teamId,
      }),
    });
  }

  async function userInfo(request: IncomingMessage, response: ServerResponse): Promise<void> {
    await readBodyBytes(request);
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
    const userId = accessTokens.get(token);
    const path = '/api/openid.connect.userInfo';
    if (userId === undefined) return answer(response, path, { ok: false, error: 'invalid_auth' });
    const user = directory.user(userId);
    answer(response, path, {
      ok: true,
      sub: user.id,
      'https://slack.com/user_id': user.id,
      'https://slack.com/team_id': workspace.teamId,
      'https://slack.com/team_name': workspace.teamName,
      name: user.realName || user.name,
    });
  }

  return {
    client,
    requests,
    approveAs(userId) {
      approvedUserId = userId;
    },
    async serve(request, response, path) {
      if (request.method === 'GET' && path === '/openid/connect/authorize') {
        authorize(response, new URL(request.url ?? '/', origin()));
        return true;
      }
      if (request.method === 'POST' && path === '/api/openid.connect.token') {
        await token(request, response);
        return true;
      }
      if (path === '/api/openid.connect.userInfo') {
        await userInfo(request, response);
        return true;
      }
      return false;
    },
  };
}
