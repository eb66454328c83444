import type { RestRouteName } from './rest-route.ts';

/** A fixed-window limit: `limit` requests, then wait until `windowMs` after the window's first one. */
export interface BucketLimit {
  limit: number;
  windowMs: number;
}

/**
 * The limits the fake enforces; `false` turns one off (its responses then carry no `X-RateLimit-*`
 * headers, which discord.js reads as "no limit").
 */
export interface RateLimitOptions {
  /** `POST /channels/:id/messages`, per channel. Default 5 per 5 s. */
  messageCreate?: BucketLimit | false;
  /** `PATCH /channels/:id/messages/:id`, per channel. Default 5 per 5 s, what bots observe. */
  messageEdit?: BucketLimit | false;
  /** Every bot-authenticated request, per token. Interaction callbacks and webhooks are exempt. Default 50 per 1 s. */
  global?: BucketLimit | false;
  /** Every other route, per route and major parameter (channel, guild or webhook). Default 50 per 1 s. */
  otherRoutes?: BucketLimit | false;
}

/** Which per-route bucket a route draws on. */
export type BucketKind = 'message-create' | 'message-edit' | 'other';

/** Why the fake answered 429. */
export type RateLimitKind = 'global' | 'route' | 'forced';

/** 429s served so far. */
export interface RateLimitHits {
  total: number;
  global: number;
  route: number;
  forced: number;
  /** By route name, e.g. `{ 'message-edit': 2 }`. */
  byRoute: Record<string, number>;
}

/** A 429 the test asks for: the next `count` requests to `route` are refused. */
export interface ForcedRateLimit {
  /** The route to refuse, e.g. `message-edit` or `webhook-message-edit`. */
  route: RestRouteName;
  /** How many requests to refuse. Default 1. */
  count?: number;
  /** What `Retry-After` says, in milliseconds. */
  retryAfterMs: number;
  /** Send it as a global limit (`X-RateLimit-Global: true`, scope `global`). Default false. */
  isGlobal?: boolean;
}

/** What the limiter decided for one request, with the headers to send either way. */
export type RateLimitDecision =
  | { isAllowed: true; headers: Record<string, string> }
  | {
      isAllowed: false;
      kind: RateLimitKind;
      headers: Record<string, string>;
      body: { message: string; retry_after: number; global: boolean };
    };

/** One request as the limiter sees it. */
export interface RateLimitedRequest {
  routeName: string;
  bucketKind: BucketKind;
  /** The channel, guild or webhook the bucket is per; `''` for routes without one. */
  majorParameter: string;
  /** Interaction callbacks and webhook calls with a token do not count towards the global limit. */
  isGlobalExempt: boolean;
}

/** Enforces per-route and global limits with Discord's headers and counts the 429s it serves. */
export interface RateLimiter {
  check(request: RateLimitedRequest): RateLimitDecision;
  force(forced: ForcedRateLimit): void;
  /** Replaces the limits (those not named keep their default) and forgets all windows. */
  configure(options: RateLimitOptions | false): void;
  readonly hits: RateLimitHits;
  /** Forgets windows, forced 429s and counts. */
  reset(): void;
}

interface Window {
  startedAtMs: number;
  used: number;
}

/** The per-route bucket one request draws on, with its current window. */
interface RouteBucket {
  hash: string;
  limit: BucketLimit;
  window: Window;
}

interface PendingForcedLimit {
  route: string;
  remaining: number;
  retryAfterMs: number;
  isGlobal: boolean;
}

// topics/rate-limits.mdx, "Global Rate Limit": "All bots can make up to 50 requests per second",
// and "Interaction endpoints are not bound to the bot's Global Rate Limit". Per-route numbers are not
// documented (Discord says them in the headers); 5 per 5 s per channel is what bots observe.
const defaultLimits = {
  messageCreate: { limit: 5, windowMs: 5000 },
  messageEdit: { limit: 5, windowMs: 5000 },
  global: { limit: 50, windowMs: 1000 },
  otherRoutes: { limit: 50, windowMs: 1000 },
} satisfies Required<RateLimitOptions>;

/**
 * Creates a limiter; `false` disables every limit. A request is checked against a forced 429 first,
 * then the global limit, then its route's bucket, and draws on both only when it is allowed.
 */
export function createRateLimiter(options: RateLimitOptions | false = {}): RateLimiter {
  let limits: Required<RateLimitOptions> = resolveLimits(options);
  const windows = new Map<string, Window>();
  let globalWindow: Window = { startedAtMs: 0, used: 0 };
  const forced: PendingForcedLimit[] = [];
  const hits: RateLimitHits = { total: 0, global: 0, route: 0, forced: 0, byRoute: {} };

  function record(kind: RateLimitKind, routeName: string): void {
    hits.total += 1;
    hits[kind] += 1;
    hits.byRoute[routeName] = (hits.byRoute[routeName] ?? 0) + 1;
  }

  function routeBucketOf(request: RateLimitedRequest, nowMs: number): RouteBucket | undefined {
    const limit =
      request.bucketKind === 'message-create'
        ? limits.messageCreate
        : request.bucketKind === 'message-edit'
          ? limits.messageEdit
          : limits.otherRoutes;
    if (limit === false) {
      return undefined;
    }
    // Like Discord's bucket hashes: shared by every channel, told apart by the major parameter.
    const hash = request.bucketKind === 'other' ? request.routeName : request.bucketKind;
    return { hash, limit, window: currentWindow(windows, `${hash}:${request.majorParameter}`, limit, nowMs) };
  }

  function takeForced(routeName: string): PendingForcedLimit | undefined {
    const index = forced.findIndex((entry) => entry.route === routeName);
    const entry = forced[index];
    if (entry !== undefined) {
      entry.remaining -= 1;
      if (entry.remaining <= 0) {
        forced.splice(index, 1);
      }
    }
    return entry;
  }

  function isGlobalWindowFull(nowMs: number): boolean {
    if (limits.global === false) {
      return false;
    }
    if (nowMs >= globalWindow.startedAtMs + limits.global.windowMs) {
      globalWindow = { startedAtMs: nowMs, used: 0 };
    }
    return globalWindow.used >= limits.global.limit;
  }

  return {
    check(request) {
      const nowMs = Date.now();
      const bucket = routeBucketOf(request, nowMs);
      const routeHeaders = bucket === undefined ? {} : bucketHeaders(bucket, nowMs);
      const countsGlobally = !request.isGlobalExempt && limits.global !== false;

      const forcedLimit = takeForced(request.routeName);
      if (forcedLimit !== undefined) {
        record('forced', request.routeName);
        const { retryAfterMs, isGlobal } = forcedLimit;
        // A real per-route 429 says the bucket is empty until the retry time.
        const headers = isGlobal
          ? routeHeaders
          : emptyBucketHeaders(bucket, request.routeName, retryAfterMs, nowMs);
        return refusal({ kind: 'forced', retryAfterMs, isGlobal, headers });
      }
      if (countsGlobally && limits.global !== false && isGlobalWindowFull(nowMs)) {
        record('global', request.routeName);
        const retryAfterMs = globalWindow.startedAtMs + limits.global.windowMs - nowMs;
        return refusal({ kind: 'global', retryAfterMs, isGlobal: true, headers: routeHeaders });
      }
      if (bucket !== undefined && bucket.window.used >= bucket.limit.limit) {
        record('route', request.routeName);
        const retryAfterMs = bucket.window.startedAtMs + bucket.limit.windowMs - nowMs;
        return refusal({ kind: 'route', retryAfterMs, isGlobal: false, headers: routeHeaders });
      }

      if (countsGlobally) {
        globalWindow.used += 1;
      }
      if (bucket === undefined) {
        return { isAllowed: true, headers: {} };
      }
      bucket.window.used += 1;
      return { isAllowed: true, headers: bucketHeaders(bucket, nowMs) };
    },
    force(entry) {
      forced.push({
        route: entry.route,
        remaining: entry.count ?? 1,
        retryAfterMs: entry.retryAfterMs,
        isGlobal: entry.isGlobal ?? false,
      });
    },
    configure(next) {
      limits = resolveLimits(next);
      windows.clear();
      globalWindow = { startedAtMs: 0, used: 0 };
    },
    hits,
    reset() {
      windows.clear();
      globalWindow = { startedAtMs: 0, used: 0 };
      forced.length = 0;
      Object.assign(hits, { total: 0, global: 0, route: 0, forced: 0 });
      for (const key of Object.keys(hits.byRoute)) {
        delete hits.byRoute[key];
      }
    },
  };
}

function resolveLimits(options: RateLimitOptions | false): Required<RateLimitOptions> {
  if (options === false) {
    return { messageCreate: false, messageEdit: false, global: false, otherRoutes: false };
  }
  return { ...defaultLimits, ...withoutUndefined(options) };
}

function withoutUndefined(options: RateLimitOptions): RateLimitOptions {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
}

/** The window a request falls in; a window ends `windowMs` after its first request, as on Discord. */
function currentWindow(windows: Map<string, Window>, key: string, limit: BucketLimit, nowMs: number): Window {
  const existing = windows.get(key);
  if (existing !== undefined && nowMs < existing.startedAtMs + limit.windowMs) {
    return existing;
  }
  const fresh = { startedAtMs: nowMs, used: 0 };
  windows.set(key, fresh);
  return fresh;
}

function seconds(durationMs: number): string {
  return (Math.max(0, durationMs) / 1000).toFixed(3);
}

/** topics/rate-limits.mdx, "Header Format": the X-RateLimit-* headers of every limited answer. */
function bucketHeaders(bucket: RouteBucket, nowMs: number): Record<string, string> {
  const resetAtMs = bucket.window.startedAtMs + bucket.limit.windowMs;
  return {
    'x-ratelimit-limit': String(bucket.limit.limit),
    'x-ratelimit-remaining': String(Math.max(0, bucket.limit.limit - bucket.window.used)),
    'x-ratelimit-reset': seconds(resetAtMs),
    'x-ratelimit-reset-after': seconds(resetAtMs - nowMs),
    'x-ratelimit-bucket': bucket.hash,
  };
}

function emptyBucketHeaders(
  bucket: RouteBucket | undefined,
  routeName: string,
  retryAfterMs: number,
  nowMs: number,
): Record<string, string> {
  return {
    'x-ratelimit-limit': String(bucket?.limit.limit ?? 1),
    'x-ratelimit-remaining': '0',
    'x-ratelimit-reset': seconds(nowMs + retryAfterMs),
    'x-ratelimit-reset-after': seconds(retryAfterMs),
    'x-ratelimit-bucket': bucket?.hash ?? routeName,
  };
}

/**
 * topics/rate-limits.mdx, "Exceeding A Rate Limit": 429 with `Retry-After`, a JSON body of
 * `message`, `retry_after` (seconds) and `global`, and `X-RateLimit-Global`/`-Scope` on a 429.
 */
function refusal(options: {
  kind: RateLimitKind;
  retryAfterMs: number;
  isGlobal: boolean;
  headers: Record<string, string>;
}): RateLimitDecision {
  const retryAfterSeconds = Number(seconds(options.retryAfterMs));
  return {
    isAllowed: false,
    kind: options.kind,
    headers: {
      ...options.headers,
      // discord.js multiplies the header by 1,000 and accepts fractions; without it the client
      // retries at once in a tight loop.
      'retry-after': seconds(options.retryAfterMs),
      'x-ratelimit-scope': options.isGlobal ? 'global' : 'user',
      ...(options.isGlobal ? { 'x-ratelimit-global': 'true' } : {}),
    },
    body: {
      message: 'You are being rate limited.',
      retry_after: retryAfterSeconds,
      global: options.isGlobal,
    },
  };
}
