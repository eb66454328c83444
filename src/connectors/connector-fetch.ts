import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { context, propagation } from '@opentelemetry/api';
import type { GuardedAgents } from '../net/guarded-agents.ts';
import { guardedFetch } from '../net/guarded-fetch.ts';
import type { UrlPolicy } from '../net/url-policy.ts';
import { toWebResponse } from '../net/web-response.ts';

/** A discovery, registration, token or revocation request, with its answer. */
const oauthRequestTimeoutMs = 20_000;

/**
 * The fetch the MCP SDK's OAuth client and its Streamable HTTP transport use for a connector: the
 * server's own origin, which the owner declared in the tools file, is trusted (as for any MCP
 * server); every other place the server's metadata names (its authorization server, a token or
 * registration endpoint) is judged as the model's fetches are — https, public addresses only, each
 * redirect judged again — so a server cannot point parley's requests into the owner's network.
 */
export function createConnectorFetch({
  server,
  serverUrl,
  requestTimeoutMs,
  agents,
  trustedOrigins = [],
}: {
  server: string;
  serverUrl: string;
  /** Trusted besides the server's own origin (see ConnectorsOptions.trustedOrigins). */
  trustedOrigins?: readonly string[];
  /** A POST to the MCP server, a tool call's answer included. */
  requestTimeoutMs: number;
  agents?: GuardedAgents;
}): FetchLike {
  const origin = new URL(serverUrl).origin;
  const policy: UrlPolicy = Object.freeze({
    purpose: `connector ${server}`,
    allowedHosts: undefined,
    trustedOrigins: Object.freeze([origin, ...trustedOrigins]),
    requiresHttps: true,
  });
  return async (input, init = {}) => {
    const url = String(input instanceof Request ? input.url : input);
    const method = (init.method ?? 'GET').toUpperCase();
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    const body = bodyText(init.body, headers);
    const isMcpRequest = new URL(url).origin === origin;
    // W3C Trace Context to the MCP server itself, as for the toolbox's servers (src/tools/mcp-fetch.ts),
    // so its spans join the reply's trace; never to the authorization server. Without tracing the
    // propagator is the API's no-op and adds nothing.
    if (isMcpRequest) propagation.inject(context.active(), headers);
    const { response } = await guardedFetch({
      url,
      policy,
      method,
      ...(body === undefined ? {} : { body }),
      // A credential (the person's bearer token, a client secret) goes to the origin it was meant
      // for and no further: a redirect elsewhere is followed without it.
      headersFor: (hop) => (hop.origin === new URL(url).origin ? headers : withoutCredentials(headers)),
      maxRedirects: 3,
      // The GET that carries the server's own messages lasts until the transport closes it.
      timeoutMs: isMcpRequest ? (method === 'GET' ? undefined : requestTimeoutMs) : oauthRequestTimeoutMs,
      ...(init.signal ? { signal: init.signal } : {}),
      ...(agents ? { agents } : {}),
    });
    return toWebResponse({ response, method });
  };
}

// The SDK sends JSON text to the MCP server and form parameters (URLSearchParams) to the
// authorization server; fetch would set the form's content type itself, so it is set here.
function bodyText(body: RequestInit['body'], headers: Record<string, string>): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof URLSearchParams) {
    headers['content-type'] ??= 'application/x-www-form-urlencoded';
    return body.toString();
  }
  throw new TypeError('a connector request body is text or form parameters');
}

function withoutCredentials(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).filter(
      ([name]) => !['authorization', 'cookie', 'dpop'].includes(name.toLowerCase()),
    ),
  );
}
