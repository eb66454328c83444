/**
 * Discord's Invalid Request Limit (discord-api-docs developers/topics/rate-limits.mdx, "Invalid
 * Request Limit aka Cloudflare bans"): "IP addresses that make too many invalid HTTP requests are
 * automatically and temporarily restricted from accessing the Discord API. Currently, this limit is
 * 10,000 per 10 minutes. An invalid request is one that results in 401, 403, or 429 statuses", and
 * "429 errors returned with `X-RateLimit-Scope: shared` are not counted against you". How long:
 * "banned for up-to an hour" (developers/activities/development-guides/production-readiness.mdx).
 *
 * Discord does not document the restricted answer's body. Cloudflare, which serves it, answers its
 * rate-limit block as error 1015 "Rate limited", with a `Retry-After` header (Cloudflare changelog
 * 2026-03-12, "Retry-After HTTP header for retryable 1xxx errors"): a 429 that is not Discord's JSON
 * and has no `X-RateLimit-*` headers, to every request, whatever its route or token.
 */
export interface InvalidRequestLimit {
  /** Invalid requests within `windowMs` that get the client banned. Default 10,000. */
  limit: number;
  /** Default 10 minutes. */
  windowMs: number;
  /** How long the ban lasts. Default one hour. */
  banMs: number;
}

export const discordInvalidRequestLimit: InvalidRequestLimit = {
  limit: 10_000,
  windowMs: 10 * 60 * 1000,
  banMs: 60 * 60 * 1000,
};

/** What the fake has counted; every client of one fake stands for one IP address. */
export interface InvalidRequestState {
  /** Invalid requests within the current window. */
  readonly count: number;
  readonly isBanned: boolean;
  /** Requests answered with the ban. */
  readonly refusedWhileBanned: number;
}

export interface InvalidRequestCounter extends InvalidRequestState {
  /** The ban's answer when the client is banned now, else undefined. */
  banAnswer(nowMs: number): { status: 429; headers: Record<string, string>; body: string } | undefined;
  /** Counts one answered request: 401, 403 and 429 (unless its scope is `shared`) are invalid. */
  record(answer: { status: number; rateLimitScope: string | undefined; atMs: number }): void;
  reset(): void;
}

export function createInvalidRequestCounter(
  options: Partial<InvalidRequestLimit> = {},
): InvalidRequestCounter {
  const limits = { ...discordInvalidRequestLimit, ...options };
  let invalidAtMs: number[] = [];
  let bannedUntilMs = 0;
  let refusedWhileBanned = 0;
  const prune = (nowMs: number) => {
    invalidAtMs = invalidAtMs.filter((atMs) => atMs > nowMs - limits.windowMs);
  };
  return {
    get count() {
      prune(Date.now());
      return invalidAtMs.length;
    },
    get isBanned() {
      return bannedUntilMs > Date.now();
    },
    get refusedWhileBanned() {
      return refusedWhileBanned;
    },
    banAnswer(nowMs) {
      if (bannedUntilMs <= nowMs) return undefined;
      refusedWhileBanned += 1;
      return {
        status: 429,
        headers: {
          'content-type': 'text/plain; charset=UTF-8',
          'retry-after': String(Math.ceil((bannedUntilMs - nowMs) / 1000)),
        },
        body: 'error code: 1015',
      };
    },
    record({ status, rateLimitScope, atMs }) {
      const isInvalid = status === 401 || status === 403 || (status === 429 && rateLimitScope !== 'shared');
      if (!isInvalid) return;
      prune(atMs);
      invalidAtMs.push(atMs);
      if (invalidAtMs.length >= limits.limit && bannedUntilMs <= atMs) bannedUntilMs = atMs + limits.banMs;
    },
    reset() {
      invalidAtMs = [];
      bannedUntilMs = 0;
      refusedWhileBanned = 0;
    },
  };
}
