import { CodeChallengeMethod, generateCodeVerifier, generateState, OAuth2Client } from 'arctic';
import { z } from 'zod';
import type { ConsolePerson } from './console-person.ts';

/** The Discord application and where its OAuth2 pages are (https://discord.com, or a local fake). */
export interface DiscordOAuthSettings {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly oauthUrl: string;
}

/** What the sign-in remembers between sending the browser to Discord and its return. */
export interface PendingSignIn {
  readonly state: string;
  readonly codeVerifier: string;
  readonly url: URL;
}

// discord-api-docs resources/user.mdx, "Get Current User" (scope identify) and "Get Current User
// Guilds" (scope guilds: partial guilds, up to 200 a page).
const discordUserSchema = z.object({
  id: z.string(),
  username: z.string(),
  global_name: z.string().nullish(),
});
const discordGuildsSchema = z.array(z.object({ id: z.string() }));

/** The scopes the console asks: who the person is, and which servers they are in. */
const scopes = ['identify', 'guilds'];

/**
 * "Sign in with Discord": the OAuth2 authorization code grant with PKCE (S256), through arctic's
 * OAuth2 client, since arctic's Discord provider cannot be pointed at anything but discord.com and
 * the tests sign in through the fake. Endpoints as discord-api-docs topics/oauth2.mdx ("OAuth2
 * URLs") lists them; the REST API as the adapter calls it, under /api/v10.
 */
export function createDiscordSignIn({
  settings,
  redirectUri,
}: {
  settings: DiscordOAuthSettings;
  redirectUri: string;
}) {
  const client = new OAuth2Client(settings.clientId, settings.clientSecret, redirectUri);
  const authorizeUrl = `${settings.oauthUrl}/oauth2/authorize`;
  const tokenUrl = `${settings.oauthUrl}/api/oauth2/token`;
  const apiUrl = `${settings.oauthUrl}/api/v10`;
  const getJson = async (path: string, accessToken: string): Promise<unknown> => {
    const response = await fetch(`${apiUrl}${path}`, {
      headers: { authorization: `Bearer ${accessToken}` },
      signal: AbortSignal.timeout(10_000),
    });
    if (!response.ok) throw new Error(`Discord answered ${response.status} to ${path}`);
    return response.json();
  };
  return {
    begin(): PendingSignIn {
      const state = generateState();
      const codeVerifier = generateCodeVerifier();
      const url = client.createAuthorizationURLWithPKCE(
        authorizeUrl,
        state,
        CodeChallengeMethod.S256,
        codeVerifier,
        scopes,
      );
      return { state, codeVerifier, url };
    },
    /** Exchanges the code and asks Discord who signed in and in which servers they are. */
    async finish({ code, codeVerifier }: { code: string; codeVerifier: string }): Promise<ConsolePerson> {
      const tokens = await client.validateAuthorizationCode(tokenUrl, code, codeVerifier);
      const accessToken = tokens.accessToken();
      const [user, guilds] = await Promise.all([
        getJson('/users/@me', accessToken).then((body) => discordUserSchema.parse(body)),
        getJson('/users/@me/guilds', accessToken).then((body) => discordGuildsSchema.parse(body)),
      ]);
      return {
        platform: 'discord',
        userId: user.id,
        name: user.global_name ?? user.username,
        signedInWith: 'discord',
        places: guilds.map((guild) => ({ platform: 'discord', workspace: guild.id })),
      };
    },
  };
}

export type DiscordSignIn = ReturnType<typeof createDiscordSignIn>;
