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
  agents: GuardedAgents[keyof Pick<GuardedAgents, 'guarded' | 'trusted'>];
  signal: AbortSignal | undefined;
}): Promise<FetchedResponse> {
  const isHttps = url.protocol === 'https:';
  try {
    const message = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const request = (isHttps ? https : http).request(
        url,
        { method, headers, agent: isHttps ? agents.https : agents.http, ...(signal ? { signal } : {}) },
        resolve,
      );
      request.on('error', reject);
      request.end(body);
    });
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
