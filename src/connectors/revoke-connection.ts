import { discoverOAuthServerInfo } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Connection } from './connection-store.ts';

/** What asking the authorization server to forget the tokens came to. */
export type RevocationResult = 'revoked' | 'not-supported' | 'failed';

/**
 * RFC 7009 token revocation, where the authorization server's metadata names a
 * `revocation_endpoint`: the SDK discovers the metadata (through the connector's guarded fetch)
 * but has no revocation call, so this one form POST is parley's. The refresh token goes first (a
 * server revokes its access tokens with it, RFC 7009 §2.1), else the access token. Never throws:
 * the connection is deleted at parley whatever the server says.
 */
export async function revokeConnection({
  serverUrl,
  connection,
  clientInformation,
  fetchFn,
}: {
  serverUrl: string;
  connection: Connection;
  clientInformation: OAuthClientInformationMixed | undefined;
  fetchFn: FetchLike;
}): Promise<RevocationResult> {
  try {
    const info = await discoverOAuthServerInfo(serverUrl, { fetchFn });
    // RFC 8414's field; the SDK's OpenID Connect variant of the type does not list it.
    const metadata = info.authorizationServerMetadata as { revocation_endpoint?: unknown } | undefined;
    const endpoint =
      typeof metadata?.revocation_endpoint === 'string' ? metadata.revocation_endpoint : undefined;
    if (endpoint === undefined) return 'not-supported';
    const { refresh_token: refreshToken, access_token: accessToken } = connection.tokens;
    const parameters = new URLSearchParams({
      token: refreshToken ?? accessToken,
      token_type_hint: refreshToken === undefined ? 'access_token' : 'refresh_token',
    });
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    if (clientInformation?.client_secret !== undefined) {
      // client_secret_basic, as the SDK's token requests authenticate (RFC 6749 §2.3.1).
      const basic = `${encodeURIComponent(clientInformation.client_id)}:${encodeURIComponent(clientInformation.client_secret)}`;
      headers.authorization = `Basic ${Buffer.from(basic).toString('base64')}`;
    } else if (clientInformation !== undefined) {
      parameters.set('client_id', clientInformation.client_id);
    }
    const response = await fetchFn(endpoint, { method: 'POST', headers, body: parameters });
    await response.body?.cancel();
    return response.ok ? 'revoked' : 'failed';
  } catch {
    return 'failed';
  }
}
