import { createHash } from 'node:crypto';
import { DefaultRestOptions, type RESTOptions } from '@discordjs/rest';
import type { Logger } from '../../src/log.ts';
import { registerWarning } from '../../src/operations/health.ts';

/**
 * Discord's Invalid Request Limit (discord-api-docs developers/topics/rate-limits.mdx, "Invalid
 * Request Limit aka Cloudflare bans"): an IP address that makes 10,000 invalid requests (401, 403,
 * or 429 unless `X-RateLimit-Scope: shared`) in 10 minutes is restricted from the whole API, "for
 * up-to an hour" (production-readiness.mdx), every bot on that address with it. The page asks
 * applications to stop "further requests after a token becomes invalid", not to make requests
 * their permissions forbid, and, for a webhook that answered 404, not "to use it again".
 */
export interface InvalidRequestLimits {
  /** Invalid requests in `windowMs` that get the address banned. */
  readonly limit: number;
  readonly windowMs: number;
  /**
   * Failures (401, 403, a webhook's 404) of one route within the window after which it gets no
   * more requests until its failures age out of the window: what keeps failing is not sent again.
   */
  readonly routeFailureLimit: number;
}

const maxRoutesRemembered = 10_000;

export const discordInvalidRequestLimits: InvalidRequestLimits = {
  limit: 10_000,
  windowMs: 10 * 60 * 1000,
  routeFailureLimit: 10,
};

/**
 * A request the guard did not send: its route kept failing, or the process is close to the ban.
 * Final: sending it again in this window would fail the same way.
 */
export class DiscordRequestWithheldError extends Error {
  override readonly name = 'DiscordRequestWithheldError';
  readonly route: string;
  constructor({ route, why }: { route: string; why: string }) {
    super(`discord request to ${route} not sent: ${why}`);
    this.route = route;
  }
}

export interface InvalidRequestGuard {
  /** discord.js's `makeRequest` with the guard in front: counts every answer, withholds what must not go. */
  readonly makeRequest: RESTOptions['makeRequest'];
  /** Invalid requests within the window now. */
  readonly invalidCount: number;
}

/**
 * Counts the invalid answers to every REST call of the adapter over a sliding window. At half the
 * limit it warns, in the log and on /readyz; a route that failed `routeFailureLimit` times in the
 * window gets no more requests until its failures are older than the window; at nine tenths of the
 * limit every request waits out the window (refused, with a log line), since an hour's ban of the
 * whole address is worse than minutes of silence.
 */
export function createInvalidRequestGuard({
  logger,
  limits = discordInvalidRequestLimits,
  baseRequest = DefaultRestOptions.makeRequest,
  nowMs = Date.now,
}: {
  logger: Logger;
  limits?: InvalidRequestLimits;
  baseRequest?: RESTOptions['makeRequest'];
  nowMs?: () => number;
}): InvalidRequestGuard {
  const invalidAtMs = createSlidingCount(limits.windowMs);
  const failuresByRoute = new Map<string, ReturnType<typeof createSlidingCount>>();
  const warnAt = Math.ceil(limits.limit / 2);
  const stopAt = Math.floor(limits.limit * 0.9);
  let isWarning = false;
  let isStopped = false;
  const withheldRoutes = new Set<string>();

  const updateWarning = (now: number) => {
    const count = invalidAtMs.count(now);
    if (count >= warnAt && !isWarning) {
      isWarning = true;
      logger.warn(
        { invalidRequests: count, limit: limits.limit, windowMs: limits.windowMs },
        'discord: half the invalid request limit used; at the limit Discord bans this IP address for up to an hour',
      );
    } else if (count < warnAt && isWarning) {
      isWarning = false;
      logger.info({ invalidRequests: count }, 'discord: invalid requests back under half the limit');
    }
    if (count >= stopAt && !isStopped) {
      isStopped = true;
      logger.error(
        { invalidRequests: count, limit: limits.limit },
        'discord: nine tenths of the invalid request limit used; sending nothing until the count falls',
      );
    } else if (count < stopAt && isStopped) {
      isStopped = false;
      logger.info(
        { invalidRequests: count },
        'discord: invalid requests below nine tenths of the limit; sending again',
      );
    }
  };

  registerWarning({
    topic: 'discord invalid requests',
    warning: () => {
      const count = invalidAtMs.count(nowMs());
      return count >= warnAt
        ? `discord: ${count} invalid requests (401, 403, 429) in the last ${formatMinutes(limits.windowMs)}; Discord bans the IP address at ${limits.limit}`
        : undefined;
    },
  });

  const makeRequest: RESTOptions['makeRequest'] = async (url, init) => {
    const now = nowMs();
    const route = routeOf(init.method ?? 'GET', url);
    updateWarning(now);
    if (isStopped) {
      throw new DiscordRequestWithheldError({ route, why: "too close to Discord's invalid request limit" });
    }
    const failures = failuresByRoute.get(route);
    if (failures && failures.count(now) >= limits.routeFailureLimit) {
      if (!withheldRoutes.has(route)) {
        withheldRoutes.add(route);
        logger.warn(
          { route, failures: failures.count(now), windowMs: limits.windowMs },
          "discord: a route keeps failing (401, 403 or a webhook's 404); sending it nothing until its failures age out",
        );
      }
      throw new DiscordRequestWithheldError({ route, why: 'it kept failing' });
    }
    if (failures && failures.count(now) === 0) {
      failuresByRoute.delete(route);
      withheldRoutes.delete(route);
    }
    // Routes name channels and tokens: forget those whose failures have aged out.
    if (failuresByRoute.size > maxRoutesRemembered) {
      for (const [key, count] of failuresByRoute) {
        if (count.count(now) === 0) {
          failuresByRoute.delete(key);
          withheldRoutes.delete(key);
        }
      }
    }
    const response = await baseRequest(url, init);
    const answeredAt = nowMs();
    const { status } = response;
    const isInvalid =
      status === 401 ||
      status === 403 ||
      (status === 429 && response.headers.get('x-ratelimit-scope') !== 'shared');
    if (isInvalid) {
      invalidAtMs.add(answeredAt);
      updateWarning(answeredAt);
    }
    if (status === 401 || status === 403 || (status === 404 && route.includes('/webhooks/'))) {
      let routeFailures = failuresByRoute.get(route);
      if (!routeFailures) {
        routeFailures = createSlidingCount(limits.windowMs);
        failuresByRoute.set(route, routeFailures);
      }
      routeFailures.add(answeredAt);
    }
    return response;
  };

  return {
    makeRequest,
    get invalidCount() {
      return invalidAtMs.count(nowMs());
    },
  };
}

/**
 * The route as Discord limits it: method, path with the major parameter (the channel, guild or
 * webhook) kept and every other id, token or emoji generalised, e.g. `POST /channels/123/messages`,
 * `PATCH /webhooks/42/:token/messages/:id`. Never a token: it is logged.
 */
export function routeOf(method: string, url: string): string {
  const path = new URL(url).pathname.replace(/^\/api(?:\/v\d+)?/, '');
  const segments = path.split('/');
  let hasMajor = false;
  const generalised = segments.map((segment, index) => {
    const previous = segments[index - 1] ?? '';
    const beforePrevious = segments[index - 2] ?? '';
    if (/^\d+$/.test(segment)) {
      if (!hasMajor && ['channels', 'guilds', 'webhooks', 'interactions'].includes(previous)) {
        hasMajor = true;
        return segment;
      }
      return ':id';
    }
    // A webhook's or an interaction's token follows its id. Every interaction's follow-ups share the
    // application's webhook id, so the token tells them apart: by a digest, never itself.
    if (['webhooks', 'interactions'].includes(beforePrevious) && /^\d+$/.test(previous)) {
      return `:token-${createHash('sha256').update(segment).digest('hex').slice(0, 12)}`;
    }
    if (previous === 'reactions') return ':emoji';
    return segment;
  });
  return `${method.toUpperCase()} ${generalised.join('/')}`;
}

/** Events within the last `windowMs`, oldest first; counting drops the older ones. */
function createSlidingCount(windowMs: number) {
  const times: number[] = [];
  let start = 0;
  const prune = (now: number) => {
    while (start < times.length && (times[start] ?? 0) <= now - windowMs) start += 1;
    if (start > 1024 && start * 2 > times.length) {
      times.splice(0, start);
      start = 0;
    }
  };
  return {
    add(now: number) {
      times.push(now);
    },
    count(now: number) {
      prune(now);
      return times.length - start;
    },
  };
}

function formatMinutes(ms: number): string {
  const minutes = ms / 60_000;
  return minutes >= 1 && Number.isInteger(minutes) ? `${minutes} minutes` : `${Math.round(ms / 1000)} s`;
}
