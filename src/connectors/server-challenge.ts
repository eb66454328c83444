import { extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';

/** What a protected MCP server's 401 says: where its resource metadata is, and the scope it wants. */
export interface ServerChallenge {
  readonly resourceMetadataUrl: URL | undefined;
  readonly scope: string | undefined;
}

/**
 * Asks the server as an unauthorized client would (an `initialize` without a token) and reads its
 * `WWW-Authenticate` with the SDK's parser: the MCP authorization specification's discovery starts
 * from that challenge (RFC 9728 §5.1: `resource_metadata`; RFC 6750 §3: `scope`), and only a server
 * that names neither is looked up at the well-known places.
 */
export async function readServerChallenge({
  serverUrl,
  fetchFn,
  clientVersion,
}: {
  serverUrl: string;
  fetchFn: FetchLike;
  clientVersion: string;
}): Promise<ServerChallenge> {
  const response = await fetchFn(serverUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: LATEST_PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: { name: 'parley', version: clientVersion },
      },
    }),
  });
  await response.body?.cancel();
  if (response.status !== 401 && response.status !== 403) {
    return { resourceMetadataUrl: undefined, scope: undefined };
  }
  const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
  return { resourceMetadataUrl, scope };
}
