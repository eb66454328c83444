import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { context, propagation } from '@opentelemetry/api';
import type { GuardedAgents } from '../net/guarded-agents.ts';
import { guardedFetch } from '../net/guarded-fetch.ts';
import type { UrlPolicy } from '../net/url-policy.ts';
import { toWebResponse } from '../net/web-response.ts';

/**
 * The fetch an HTTP MCP server's transport is given: parley's guarded fetch, to the origin the
 * owner declared for that server and no other (a redirect elsewhere, an address discovered in a
 * reply: refused before a byte is sent). The declared origin is trusted as the owner's own, like
 * GATEWAY_BASE_URL, so a server on the owner's network is reachable; nothing else is.
 *
 * `requestTimeoutMs` bounds a POST or DELETE with its answer (a tool call's answer streams back in
 * its POST's response); the GET that carries the server's own messages lasts until the transport
 * closes it.
 */
export function createMcpFetch({
  server,
  origin,
  requestTimeoutMs,
  agents,
}: {
  server: string;
  origin: string;
  requestTimeoutMs: number;
  agents?: GuardedAgents;
}): FetchLike {
  const policy: UrlPolicy = Object.freeze({
    purpose: `MCP server ${server}`,
    allowedHosts: Object.freeze([]),
    trustedOrigins: Object.freeze([origin]),
    requiresHttps: false,
  });
  return async (input, init = {}) => {
    const method = (init.method ?? 'GET').toUpperCase();
    const body = init.body;
    if (body !== undefined && body !== null && typeof body !== 'string') {
      throw new TypeError('an MCP request body is JSON text');
    }
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    // W3C Trace Context: the server's spans join the reply's trace, under the tool call's span.
    // Without tracing the propagator is the API's no-op and adds nothing.
    propagation.inject(context.active(), headers);
    const { response } = await guardedFetch({
      url: String(input),
      policy,
      method,
      ...(typeof body === 'string' ? { body } : {}),
      headersFor: () => headers,
      maxRedirects: 3,
      timeoutMs: method === 'GET' ? undefined : requestTimeoutMs,
      ...(init.signal ? { signal: init.signal } : {}),
      ...(agents ? { agents } : {}),
    });
    return toWebResponse({ response, method });
  };
}
