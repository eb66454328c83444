import { randomBytes } from 'node:crypto';
import { decodeIdToken, generateState, OAuth2Client } from 'arctic';
import { z } from 'zod';
import type { ConsolePerson } from './console-person.ts';

/** The Slack app's OAuth client and where Slack is (https://slack.com, or a local fake). */
export interface SlackOAuthSettings {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly oauthUrl: string;
}

/** What the sign-in remembers between sending the browser to Slack and its return. */
export interface PendingSlackSignIn {
  readonly state: string;
  readonly nonce: string;
  readonly url: URL;
}

// docs.slack.dev/reference/methods/openid.connect.userInfo (node-slack-sdk's
// OpenIDConnectUserInfoResponse): the person and their workspace as claims.
const userInfoSchema = z.object({
  ok: z.literal(true),
  'https://slack.com/user_id': z.string(),
  'https://slack.com/team_id': z.string(),
  name: z.string().optional(),
});
const idTokenSchema = z.object({ nonce: z.string().optional() });

/** OpenID Connect's scopes: `openid` is required; `profile` gives the name. */
const scopes = ['openid', 'profile'];

/**
 * "Sign in with Slack": OpenID Connect's authorization code flow as Slack runs it (authorize at
 * /openid/connect/authorize, the code exchanged with openid.connect.token, the person read with
 * openid.connect.userInfo), through arctic's OAuth2 client, whose Slack provider has slack.com built
 * in. `state` binds the return to this browser; the `nonce` comes back inside the ID token, which is
 * read without checking its signature because it came straight from Slack's token method over TLS
 * (OpenID Connect Core 1.0, §3.1.3.7).
 */
export function createSlackSignIn({
  settings,
  redirectUri,
}: {
  settings: SlackOAuthSettings;
  redirectUri: string;
}) {
  const client = new OAuth2Client(settings.clientId, settings.clientSecret, redirectUri);
  const authorizeUrl = `${settings.oauthUrl}/openid/connect/authorize`;
  const apiUrl = `${settings.oauthUrl}/api`;
  return {
    begin(): PendingSlackSignIn {
      const state = generateState();
      const nonce = randomBytes(16).toString('base64url');
      const url = client.createAuthorizationURL(authorizeUrl, state, scopes);
      url.searchParams.set('nonce', nonce);
      return { state, nonce, url };
    },
    /** Exchanges the code, checks the nonce, and asks Slack who signed in and in which workspace. */
    async finish({ code, nonce }: { code: string; nonce: string }): Promise<ConsolePerson> {
      const tokens = await client.validateAuthorizationCode(`${apiUrl}/openid.connect.token`, code, null);
      const claims = idTokenSchema.parse(decodeIdToken(tokens.idToken()));
      if (claims.nonce !== nonce) throw new Error('the ID token’s nonce is not the one this sign-in sent');
      const response = await fetch(`${apiUrl}/openid.connect.userInfo`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens.accessToken()}` },
        signal: AbortSignal.timeout(10_000),
      });
      const info = userInfoSchema.parse(await response.json());
      return {
        platform: 'slack',
        userId: info['https://slack.com/user_id'],
        name: info.name ?? info['https://slack.com/user_id'],
        signedInWith: 'slack',
        places: [{ platform: 'slack', workspace: info['https://slack.com/team_id'] }],
      };
    },
  };
}

export type SlackSignIn = ReturnType<typeof createSlackSignIn>;
