import http from 'node:http';
import https from 'node:https';
import { type GuardedAgents, PrivateAddressError, sharedGuardedAgents } from './guarded-agents.ts';
import { judgeUrl, type RefusalReason, type UrlPolicy } from './url-policy.ts';

/** A link parley would not follow: the reason is for the person's note, the detail for the log. */
export class BlockedUrlError extends Error {
  override readonly name = 'BlockedUrlError';
  readonly reason: RefusalReason | 'too-many-redirects';
  /** The link's host (never its path or query, which may carry signatures). */
  readonly host: string;
  constructor({
    reason,
    host,
    detail,
    cause,
  }: {
    reason: BlockedUrlError['reason'];
    host: string;
    detail: string;
    cause?: unknown;
  }) {
    super(`refused to fetch from ${host}: ${reason} (${detail})`, { cause });
    this.reason = reason;
    this.host = host;
  }
}

/** The parts of a response a download reads, shaped like fetch's `Response`. */
export interface FetchedResponse {
  readonly status: number;
  readonly ok: boolean;
  readonly headers: {
    get(name: string): string | null;
    /** Every header, lowercase names, for a caller that hands the response on whole (MCP's transport). */
    entries(): Array<[string, string]>;
  };
  /** The body's chunks; `cancel` drops the rest (and the connection). */
  readonly body: AsyncIterable<Uint8Array> & { cancel(): Promise<void> };
  text(): Promise<string>;
}

/** A response whose redirects parley followed itself, each hop checked. */
export interface GuardedResponse {
  readonly response: FetchedResponse;
  /** Where the response came from after redirects. */
  readonly finalUrl: URL;
  /** How many redirects were followed. */
  readonly redirectCount: number;
}

export interface GuardedFetchOptions {
  readonly url: string;
  readonly policy: UrlPolicy;
  /** GET unless said (MCP's Streamable HTTP posts its messages and deletes its session). */
  readonly method?: string;
  /** Sent with the first hop, and again after a 307 or 308; a 301, 302 or 303 turns a POST into a GET. */
  readonly body?: string;
  /**
   * Headers for one hop, asked again for every redirect target: a credential goes only where its
   * owner's hosts are, never along with a redirect elsewhere.
   */
  readonly headersFor?: (url: URL) => Record<string, string>;
  /** Redirects followed before giving up. */
  readonly maxRedirects?: number;
  /**
   * The whole download, redirects and body included, when the caller reads the body within it.
   * Undefined only for a stream the caller ends itself through `signal` (an MCP server's events).
   */
  readonly timeoutMs: number | undefined;
  readonly signal?: AbortSignal;
  /** Connection pools; the process's shared ones unless a test brings its own. */
  readonly agents?: GuardedAgents;
}

const redirectStatuses = new Set([301, 302, 303, 307, 308]);

/**
 * GET of a link a platform or the gateway handed parley. Every hop is judged by `policy` (scheme,
 * host, trusted origin) and connected through a pool that refuses private addresses at connect
 * time; redirects are followed here, at most `maxRedirects`, so each target is judged too.
 * Throws `BlockedUrlError` for a refused link; the body is the caller's to read within `timeoutMs`.
 */
export async function guardedFetch(options: GuardedFetchOptions): Promise<GuardedResponse> {
  const { policy, maxRedirects = 3 } = options;
  const agents = options.agents ?? sharedGuardedAgents();
  const signals = [
    ...(options.signal ? [options.signal] : []),
    ...(options.timeoutMs === undefined ? [] : [AbortSignal.timeout(options.timeoutMs)]),
  ];
  const signal = signals.length === 0 ? undefined : AbortSignal.any(signals);
  let url = parseUrl(options.url);
  let method = options.method ?? 'GET';
  let body = options.body;
  for (let redirectCount = 0; ; redirectCount += 1) {
    const verdict = judgeUrl(policy, url);
    if (verdict.kind === 'refused') {
      throw new BlockedUrlError({ reason: verdict.reason, host: url.host, detail: verdict.detail });
    }
    const response = await fetchOnce({
      url,
      method,
      body,
      headers: options.headersFor?.(url) ?? {},
      agents: verdict.kind === 'trusted' ? agents.trusted : agents.guarded,
      signal,
    });
    const location = response.headers.get('location');
    if (!redirectStatuses.has(response.status) || location === null) {
      return { response, finalUrl: url, redirectCount };
    }
    await response.body.cancel();
    if (redirectCount >= maxRedirects) {
      throw new BlockedUrlError({
        reason: 'too-many-redirects',
        host: url.host,
        detail: `more than ${maxRedirects} redirects`,
      });
    }
    url = parseUrl(location, url);
    // As fetch does: 307 and 308 repeat the request; the others fetch the new place with a GET.
    if (response.status !== 307 && response.status !== 308 && method !== 'HEAD') {
      method = 'GET';
      body = undefined;
    }
  }
}

type AgentPair = GuardedAgents[keyof Pick<GuardedAgents, 'guarded' | 'trusted'>];

/**
 * One request. A kept-alive connection the server has meanwhile closed (its idle timeout, a restart)
 * fails the next request sent on it with ECONNRESET before any byte of an answer, though nothing is
 * wrong with the link: that request is sent once more, on a fresh connection (Node's own advice,
 * http.ClientRequest `reusedSocket`). A GET changes nothing, so sending it twice is safe; an error
 * on a fresh connection, or after part of an answer came, is the caller's.
 */
async function fetchOnce({
  url,
  method,
  body,
  headers,
  agents,
  signal,
}: {
  url: URL;
  method: string;
  body: string | undefined;
  headers: Record<string, string>;
  agents: AgentPair;
  signal: AbortSignal | undefined;
}): Promise<FetchedResponse> {
  const agent = url.protocol === 'https:' ? agents.https : agents.http;
  try {
    let message: http.IncomingMessage;
    try {
      message = await send({ url, method, body, headers, agent, signal });
    } catch (error) {
      // Only a GET is sent twice: it changes nothing (a POST might have been acted on).
      if (!(error instanceof StaleConnectionError) || method !== 'GET' || signal?.aborted) {
        throw error instanceof StaleConnectionError ? error.cause : error;
      }
      // The other idle connections to that server went stale with it: none of them is tried next.
      dropIdleConnections(agent, url);
      message = await send({ url, method, body, headers, agent, signal }).catch((retryError: unknown) => {
        throw retryError instanceof StaleConnectionError ? retryError.cause : retryError;
      });
    }
    return toFetchedResponse(message);
  } catch (error) {
    const refusal = privateAddressIn(error);
    if (refusal) {
      throw new BlockedUrlError({
        reason: 'private-address',
        host: url.host,
        detail: `${refusal.address} (${refusal.range})`,
        cause: refusal,
      });
    }
    throw error;
  }
}

/** A request that failed on a reused connection with ECONNRESET before any byte of an answer. */
class StaleConnectionError extends Error {
  override readonly name = 'StaleConnectionError';
}

function send({
  url,
  method,
  body,
  headers,
  agent,
  signal,
}: {
  url: URL;
  method: string;
  body: string | undefined;
  headers: Record<string, string>;
  agent: http.Agent;
  signal: AbortSignal | undefined;
}): Promise<http.IncomingMessage> {
  return new Promise<http.IncomingMessage>((resolve, reject) => {
    const request = (url.protocol === 'https:' ? https : http).request(
      url,
      { method, headers, agent, ...(signal ? { signal } : {}) },
      resolve,
    );
    request.end(body);
    // What the connection had read before this request: an answer to it would read more.
    let bytesReadBefore: number | undefined;
    request.once('socket', (socket) => {
      bytesReadBefore = socket.bytesRead;
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      const isNothingRead = bytesReadBefore !== undefined && request.socket?.bytesRead === bytesReadBefore;
      if (request.reusedSocket && error.code === 'ECONNRESET' && isNothingRead) {
        reject(new StaleConnectionError('a kept-alive connection was reset', { cause: error }));
      } else reject(error);
    });
  });
}

/** Closes the agent's idle connections to `url`'s server. */
function dropIdleConnections(agent: http.Agent, url: URL): void {
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const prefix = `${url.hostname}:${port}:`;
  for (const [name, sockets] of Object.entries(agent.freeSockets)) {
    if (!name.startsWith(prefix)) continue;
    for (const socket of sockets ?? []) socket.destroy();
  }
}

function toFetchedResponse(message: http.IncomingMessage): FetchedResponse {
  const status = message.statusCode ?? 0;
  const body = Object.assign(message, {
    cancel: async () => {
      message.destroy();
    },
  }) as AsyncIterable<Uint8Array> & { cancel(): Promise<void> };
  return {
    status,
    ok: status >= 200 && status < 300,
    headers: {
      get: (name) => {
        const value = message.headers[name.toLowerCase()];
        return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
      },
      entries: () =>
        Object.entries(message.headers).flatMap(
          ([name, value]): Array<[string, string]> =>
            value === undefined ? [] : [[name, Array.isArray(value) ? value.join(', ') : value]],
        ),
    },
    body,
    async text() {
      const chunks: Buffer[] = [];
      for await (const chunk of message) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
  };
}

// The refusal may arrive as the error itself or as the cause of another.
function privateAddressIn(error: unknown): PrivateAddressError | undefined {
  for (let current = error; current instanceof Error; current = current.cause) {
    if (current instanceof PrivateAddressError) return current;
  }
  return undefined;
}

function parseUrl(value: string, base?: URL): URL {
  try {
    return new URL(value, base);
  } catch (error) {
    throw new BlockedUrlError({
      reason: 'not-http',
      host: '(not a link)',
      detail: 'unparsable',
      cause: error,
    });
  }
}

/** Why a link was refused, in words for a person: "its link points to a private network address". */
export function describeRefusal(error: BlockedUrlError): string {
  switch (error.reason) {
    case 'private-address':
      return 'its link points to a private network address';
    case 'host-not-allowed':
      return `its link points to ${error.host}, which is not a host I download from`;
    case 'not-https':
      return 'its link is not https';
    case 'too-many-redirects':
      return 'its link redirected too many times';
    case 'not-http':
      return 'its link is not a web link';
  }
}
