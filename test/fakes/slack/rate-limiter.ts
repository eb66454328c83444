/**
 * One method's limit, as a token bucket: `burst` calls at once, refilled at `perMinute`. Slack counts
 * per app and workspace and method; `chat.postMessage` counts per channel.
 */
export interface RateLimit {
  perMinute: number;
  burst: number;
  /** `channel`: one bucket per `channel` argument (as `chat.postMessage`); `workspace`: one bucket. */
  scope: 'workspace' | 'channel';
}

// Slack's documented tiers ("Rate limits", docs.slack.dev/apis/web-api/rate-limits): Tier 1 "1+ per
// minute", Tier 2 "20+ per minute", Tier 3 "50+ per minute", Tier 4 "100+ per minute", each per method
// and workspace, tolerating "sporadic bursts". The burst sizes are this fake's choice (Slack publishes
// none), small enough that a bot which ignores the rate feels it.
const tier1: RateLimit = { perMinute: 1, burst: 1, scope: 'workspace' };
const tier2: RateLimit = { perMinute: 20, burst: 5, scope: 'workspace' };
const tier3: RateLimit = { perMinute: 50, burst: 10, scope: 'workspace' };
const tier4: RateLimit = { perMinute: 100, burst: 20, scope: 'workspace' };

/** Slack's tiers, for tests that configure a method's limit. */
export const rateLimitTiers = { tier1, tier2, tier3, tier4 } as const;

/**
 * The limits a fake starts with, from each method's page on docs.slack.dev ("Facts: Rate limits"). A
 * method not listed is unlimited: `apps.connections.open` is Tier 1 in Slack, but a limit there would
 * only slow down reconnect tests.
 */
export const defaultRateLimits: Readonly<Record<string, RateLimit>> = {
  // auth.test's page publishes no tier; Tier 4 is the fake's guess.
  'auth.test': tier4,
  // auth.teams.list: "Tier 2" (docs.slack.dev/reference/methods/auth.teams.list).
  'auth.teams.list': tier2,
  // "Special": about one message a second per channel, short bursts allowed (chat.postMessage page).
  'chat.postMessage': { perMinute: 60, burst: 3, scope: 'channel' },
  'chat.update': tier3,
  'chat.delete': tier3,
  'chat.postEphemeral': tier4,
  'chat.startStream': tier2,
  'chat.appendStream': tier4,
  'chat.stopStream': tier2,
  // "Special", counted per channel (assistant.threads.setStatus page); no number is published, so the
  // fake uses chat.postMessage's.
  'assistant.threads.setStatus': { perMinute: 60, burst: 3, scope: 'channel' },
  'assistant.threads.setTitle': tier4,
  'assistant.threads.setSuggestedPrompts': tier4,
  // Tier 3 both: slackapi/java-slack-sdk PR #1633 ("Rate limit: Tier 3 (both)"), as slack-morphism's
  // agents.rs registers them (SLACK_TIER3_METHOD_CONFIG).
  'agents.sessions.setStatus': tier3,
  'agents.sessions.rename': tier3,
  'conversations.history': tier3,
  'conversations.replies': tier3,
  'conversations.info': tier3,
  'conversations.open': tier3,
  'users.info': tier4,
  'users.list': tier2,
  'files.getUploadURLExternal': tier4,
  'files.completeUploadExternal': tier4,
  'files.info': tier4,
  'reactions.add': tier3,
  'reactions.remove': tier2,
  'views.open': tier4,
  'views.publish': tier4,
};

/** Options of the limiter; `limits` entries override the defaults, `null` removes one. */
export interface RateLimiterOptions {
  isEnabled?: boolean;
  limits?: Record<string, RateLimit | null>;
  /** A monotonic clock in milliseconds; tests of the limiter pass their own. */
  nowMs?: () => number;
}

/** Decides which calls get a 429, and counts them. */
export interface RateLimiter {
  /**
   * Takes one call from the method's bucket; returns the `Retry-After` seconds when it is empty.
   * Limits are "evaluated per method, per workspace, per app" (docs.slack.dev/apis/web-api/rate-limits):
   * `workspace` names the installation's workspace (or org) when the call used an installed token.
   */
  admit(
    method: string,
    channel: string | undefined,
    workspace?: string,
  ): { retryAfterSec: number } | undefined;
  /** Makes the next `times` calls of `method` answer 429 with this `Retry-After`, limits on or off. */
  forceRateLimit(options: { method: string; times?: number; retryAfterSec?: number }): void;
  /** How many calls were answered 429: of `method`, or of all methods. */
  rateLimitedCount(method?: string): number;
  reset(): void;
}

interface Bucket {
  tokens: number;
  refilledAtMs: number;
}

/** Creates a limiter with Slack-like defaults. */
export function createRateLimiter(options: RateLimiterOptions = {}): RateLimiter {
  const nowMs = options.nowMs ?? (() => performance.now());
  const isEnabled = options.isEnabled ?? true;
  const limits = new Map<string, RateLimit>(Object.entries(defaultRateLimits));
  for (const [method, limit] of Object.entries(options.limits ?? {})) {
    if (limit === null) {
      limits.delete(method);
    } else {
      limits.set(method, limit);
    }
  }
  const buckets = new Map<string, Bucket>();
  const forced = new Map<string, { remaining: number; retryAfterSec: number }>();
  const counts = new Map<string, number>();

  function count(method: string): void {
    counts.set(method, (counts.get(method) ?? 0) + 1);
  }

  function takeForced(method: string): number | undefined {
    const entry = forced.get(method);
    if (entry === undefined) {
      return undefined;
    }
    entry.remaining -= 1;
    if (entry.remaining <= 0) {
      forced.delete(method);
    }
    return entry.retryAfterSec;
  }

  function takeFromBucket(
    method: string,
    channel: string | undefined,
    workspace: string | undefined,
  ): number | undefined {
    const limit = limits.get(method);
    if (!isEnabled || limit === undefined) {
      return undefined;
    }
    const methodKey = limit.scope === 'channel' ? `${method} ${channel ?? ''}` : method;
    const key = workspace === undefined ? methodKey : `${workspace} ${methodKey}`;
    const now = nowMs();
    const bucket = buckets.get(key) ?? { tokens: limit.burst, refilledAtMs: now };
    const tokensPerMs = limit.perMinute / 60_000;
    bucket.tokens = Math.min(limit.burst, bucket.tokens + (now - bucket.refilledAtMs) * tokensPerMs);
    bucket.refilledAtMs = now;
    buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return undefined;
    }
    // Slack sends whole seconds; rounding up means a client that waits exactly that long gets in.
    return Math.max(1, Math.ceil((1 - bucket.tokens) / tokensPerMs / 1000));
  }

  return {
    admit(method, channel, workspace) {
      const retryAfterSec = takeForced(method) ?? takeFromBucket(method, channel, workspace);
      if (retryAfterSec === undefined) {
        return undefined;
      }
      count(method);
      return { retryAfterSec };
    },
    forceRateLimit({ method, times = 1, retryAfterSec = 1 }) {
      forced.set(method, { remaining: times, retryAfterSec });
    },
    rateLimitedCount(method) {
      if (method !== undefined) {
        return counts.get(method) ?? 0;
      }
      let total = 0;
      for (const value of counts.values()) {
        total += value;
      }
      return total;
    },
    reset() {
      buckets.clear();
      forced.clear();
      counts.clear();
    },
  };
}
