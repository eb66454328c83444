import type { Logger } from '../../src/log.ts';

/**
 * Slack's answer to a call over a method's rate is HTTP 429 with `Retry-After` in seconds, and the
 * limit is counted per method and workspace (docs.slack.dev/apis/web-api/rate-limits). @slack/web-api's
 * WebClient, left to itself, pauses its whole request queue for that time, so one limited status line
 * would hold every reply in the workspace. This layer sits under the WebClient as its `fetch` (the
 * client runs with `rejectRateLimitedCalls`, so it never pauses itself) and holds only the method
 * Slack limited.
 */
export interface MethodPauses {
  /** The WebClient's `fetch`: Web API calls go through the pauses, anything else straight out. */
  readonly fetch: typeof fetch;
  /** Forgets every pause (tests start each case from here). */
  reset(): void;
}

/**
 * Calls parley can do without: a status line, a display name. When their method is paused they fail
 * at once instead of waiting, and their callers carry on without them.
 */
export const optionalMethods: ReadonlySet<string> = new Set(['assistant.threads.setStatus', 'users.info']);

/** Methods Slack limits per channel rather than per workspace (their docs.slack.dev pages: "Special"). */
const perChannelMethods: ReadonlySet<string> = new Set(['chat.postMessage', 'assistant.threads.setStatus']);

/**
 * Creates the layer. A required call whose method is paused waits for the pause (at most
 * `maxWaitMs`), and one answered 429 is sent again after its Retry-After, up to `maxRetries` times;
 * past either bound the caller gets the 429 as the WebClient's rate-limited error.
 */
export function createMethodPauses({
  apiUrl,
  logger,
  maxWaitMs = 20_000,
  maxRetries = 3,
  baseFetch = globalThis.fetch,
  now = Date.now,
}: {
  /** The Web API base, e.g. `https://slack.com/api/`. */
  apiUrl: string;
  logger: Logger;
  maxWaitMs?: number;
  maxRetries?: number;
  baseFetch?: typeof fetch;
  now?: () => number;
}): MethodPauses {
  const pausedUntilMs = new Map<string, number>();

  const send = async (url: string, init: RequestInit | undefined): Promise<Response> => {
    const method = url.slice(apiUrl.length).split('?')[0] ?? '';
    const key = pauseKeyOf(method, init);
    const isOptional = optionalMethods.has(method);
    for (let attempt = 0; ; attempt += 1) {
      const waitMs = (pausedUntilMs.get(key) ?? 0) - now();
      if (waitMs > 0) {
        if (isOptional || waitMs > maxWaitMs) return tooManyRequests(waitMs);
        await sleep(waitMs, init?.signal ?? undefined);
      }
      const response = await baseFetch(url, init);
      if (response.status !== 429) return response;
      const retryAfterSec = Number.parseInt(response.headers.get('retry-after') ?? '', 10);
      const pauseMs = (Number.isFinite(retryAfterSec) ? Math.max(retryAfterSec, 1) : 1) * 1_000;
      pausedUntilMs.set(key, now() + pauseMs);
      logger.info({ method, retryAfterMs: pauseMs }, 'slack: rate limited; holding this method only');
      if (isOptional || pauseMs > maxWaitMs || attempt >= maxRetries) return response;
      await response.body?.cancel();
    }
  };

  return {
    fetch: ((input: Parameters<typeof fetch>[0], init?: RequestInit) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      return url.startsWith(apiUrl) ? send(url, init) : baseFetch(input, init);
    }) as typeof fetch,
    reset() {
      pausedUntilMs.clear();
    },
  };
}

/** Slack counts per workspace (one bot token each) and method, and some methods per channel too. */
function pauseKeyOf(method: string, init: RequestInit | undefined): string {
  const token = authorizationOf(init?.headers) ?? '';
  if (!perChannelMethods.has(method) || typeof init?.body !== 'string') return `${token} ${method}`;
  const form = new URLSearchParams(init.body);
  return `${token} ${method} ${form.get('channel') ?? form.get('channel_id') ?? ''}`;
}

function authorizationOf(headers: RequestInit['headers']): string | undefined {
  if (headers === undefined) return undefined;
  if (headers instanceof Headers) return headers.get('authorization') ?? undefined;
  if (Array.isArray(headers)) return headers.find(([name]) => name.toLowerCase() === 'authorization')?.[1];
  const record = headers as Record<string, string>;
  return record.Authorization ?? record.authorization;
}

/** The 429 Slack would send, answered here for a method known to be paused, without asking Slack. */
function tooManyRequests(waitMs: number): Response {
  return new Response(JSON.stringify({ ok: false, error: 'ratelimited' }), {
    status: 429,
    headers: { 'content-type': 'application/json', 'retry-after': String(Math.ceil(waitMs / 1_000)) },
  });
}

function sleep(delayMs: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, delayMs);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
