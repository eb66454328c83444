/**
 * A platform's rate limits as data. Every limit is one small object behind {@link RateLimit}: the
 * outbound queue asks it whether a call may go now, and tells it when the call's response arrived.
 * Two shapes cover the platforms parley speaks to:
 *
 * - a sliding window, `limit` calls in any `windowMs` (Discord: 50 requests a second for the whole
 *   bot token, and about 5 creates and 5 edits per 5 s in each channel), and
 * - a token bucket, `burst` calls at once refilled at `perMinute` (Slack: each Web API method's tier,
 *   per workspace).
 *
 * The interface is deliberately small and may answer asynchronously, so that a limit shared by
 * several bot processes (a Redis-backed window, counted in one sorted set per key) can stand in for
 * the in-process one: `tryAcquire` is one atomic round trip (a Lua script: drop expired entries,
 * count, add), and `release` one more. The queue awaits an answer only when it is a promise, so the
 * in-process limits below never cost a tick.
 */
export interface RateLimit {
  /**
   * Counts one call under `key` if there is room at `nowMs`; otherwise says when to ask again
   * (`Infinity` when only a response in flight can make room: the queue asks again on every response).
   */
  tryAcquire(key: string, nowMs: number): Acquisition | Promise<Acquisition>;
}

/** The answer of {@link RateLimit.tryAcquire}. */
export type Acquisition =
  | {
      readonly isGranted: true;
      /**
       * The call is over: its response arrived at `endedAtMs`, or it never went out (`wasSent`
       * false, e.g. another limit of the same call refused), in which case the slot is given back.
       */
      release(outcome: { readonly endedAtMs: number; readonly wasSent: boolean }): void | Promise<void>;
    }
  | { readonly isGranted: false; readonly retryAtMs: number };

/** One limit a call draws on, and the key it counts under (a channel, a workspace and method). */
export interface BucketClaim {
  readonly limit: RateLimit;
  readonly key: string;
}

/** Window sizes learned from the platform, by key; see {@link SlidingWindow.learn}. */
export interface LearnedWindow {
  readonly limit: number;
  readonly windowMs: number;
}

/** A sliding window that can be told the real size of a key's bucket (Discord's `X-RateLimit-*`). */
export interface SlidingWindow extends RateLimit {
  /** From now on, `key` allows `limit` calls in any `windowMs` instead of the configured default. */
  learn(key: string, window: LearnedWindow): void;
  /** How many calls `key` counts in the window ending at `nowMs`, those in flight included. */
  usedAt(key: string, nowMs: number): number;
  /**
   * The same window for calls that must leave `spare` slots of every key free (in-between edits,
   * so that a final edit always finds one): it counts in the same slots, and grants only while
   * more than `spare` are free.
   */
  keepingSpare(spare: number): RateLimit;
  /**
   * When a call that leaves `spare` slots free could be granted under `key`: `nowMs` when it could
   * now, `Infinity` while only a response in flight can make room.
   */
  spareRoomAtMs(key: string, nowMs: number, spare: number): number;
}

/**
 * A limit that grants only while `window` is used below `fraction` of its size under `key`: for
 * courtesies (typing) that may use a quiet budget but never a busy one, whose text right behind
 * them needs every slot. It counts nothing itself.
 */
export function createQuietGate({
  window,
  key,
  limit,
  fraction,
  alsoComing = () => 0,
}: {
  window: SlidingWindow;
  key: string;
  limit: number;
  fraction: number;
  /** Calls not yet in the window that will soon need it (replies about to post), counted as used. */
  alsoComing?: (nowMs: number) => number;
}): RateLimit {
  return {
    tryAcquire(_gateKey, nowMs) {
      if (window.usedAt(key, nowMs) + alsoComing(nowMs) >= limit * fraction) {
        return { isGranted: false, retryAtMs: Number.POSITIVE_INFINITY };
      }
      return { isGranted: true, release: () => undefined };
    },
  };
}

interface Slot {
  /** When the response arrived; infinite while the call is in flight. */
  endedAtMs: number;
}

/**
 * At most `limit` calls in any `windowMs` per key. A call occupies its slot from the moment it is
 * sent until one window after its response: the platform counts it when it arrives, which can be
 * well after we hand it to the HTTP client, so no two calls the platform could count in one window
 * escape this one, whatever the network did in between.
 */
export function createSlidingWindow({ limit, windowMs }: { limit: number; windowMs: number }): SlidingWindow {
  const slotsByKey = new Map<string, Slot[]>();
  const learned = new Map<string, LearnedWindow>();
  const sizeOf = (key: string): LearnedWindow => learned.get(key) ?? { limit, windowMs };
  const acquire = (key: string, nowMs: number, spare: number): Acquisition => {
    const { limit: keyLimit, windowMs: keyWindowMs } = sizeOf(key);
    const usable = Math.max(1, keyLimit - spare);
    const slots = slotsByKey.get(key) ?? [];
    dropExpired(slots, nowMs - keyWindowMs);
    if (slots.length >= usable) {
      if (slots.length === 0) slotsByKey.delete(key);
      return { isGranted: false, retryAtMs: freedAtMs(slots, usable, keyWindowMs) };
    }
    const slot: Slot = { endedAtMs: Number.POSITIVE_INFINITY };
    slots.push(slot);
    slotsByKey.set(key, slots);
    return {
      isGranted: true,
      release({ endedAtMs, wasSent }) {
        if (wasSent) {
          slot.endedAtMs = endedAtMs;
          return;
        }
        const index = slots.indexOf(slot);
        if (index !== -1) slots.splice(index, 1);
        if (slots.length === 0 && slotsByKey.get(key) === slots) slotsByKey.delete(key);
      },
    };
  };
  return {
    learn(key, window) {
      if (window.limit >= 1 && window.windowMs > 0) learned.set(key, window);
    },
    usedAt(key, nowMs) {
      const slots = slotsByKey.get(key);
      if (slots === undefined) return 0;
      dropExpired(slots, nowMs - sizeOf(key).windowMs);
      return slots.length;
    },
    tryAcquire: (key, nowMs) => acquire(key, nowMs, 0),
    keepingSpare: (spare) => ({ tryAcquire: (key, nowMs) => acquire(key, nowMs, spare) }),
    spareRoomAtMs(key, nowMs, spare) {
      const slots = slotsByKey.get(key);
      if (slots === undefined) return nowMs;
      const { limit: keyLimit, windowMs: keyWindowMs } = sizeOf(key);
      dropExpired(slots, nowMs - keyWindowMs);
      const usable = Math.max(1, keyLimit - spare);
      return slots.length < usable ? nowMs : freedAtMs(slots, usable, keyWindowMs);
    },
  };
}

function dropExpired(slots: Slot[], cutoffMs: number): void {
  let kept = 0;
  for (const slot of slots) {
    if (slot.endedAtMs > cutoffMs) {
      slots[kept] = slot;
      kept += 1;
    }
  }
  slots.length = kept;
}

// When one more call fits: once enough finished slots have left the window (never, while every slot
// is still in flight: a response frees one, and the queue asks again then).
function freedAtMs(slots: readonly Slot[], limit: number, windowMs: number): number {
  const finished = slots
    .map((slot) => slot.endedAtMs)
    .filter(Number.isFinite)
    .sort((first, second) => first - second);
  const freedBy = finished[slots.length - limit];
  return freedBy === undefined ? Number.POSITIVE_INFINITY : freedBy + windowMs;
}

/** One token bucket's numbers. */
export interface TokenBucketSize {
  readonly perMinute: number;
  /** Calls that may go at once after a quiet spell. */
  readonly burst: number;
}

interface Bucket {
  tokens: number;
  refilledAtMs: number;
}

/**
 * `burst` calls at once, refilled at `perMinute`, per key. A bucket rather than a fixed window: a
 * window lets a burst through and then holds every caller until it has passed, which shows as a stall.
 */
export function createTokenBucket({ perMinute, burst }: TokenBucketSize): RateLimit {
  const buckets = new Map<string, Bucket>();
  const tokensPerMs = perMinute / 60_000;
  return {
    tryAcquire(key, nowMs) {
      const bucket = buckets.get(key) ?? { tokens: burst, refilledAtMs: nowMs };
      buckets.set(key, bucket);
      bucket.tokens = Math.min(burst, bucket.tokens + (nowMs - bucket.refilledAtMs) * tokensPerMs);
      bucket.refilledAtMs = nowMs;
      if (bucket.tokens < 1) {
        return { isGranted: false, retryAtMs: nowMs + Math.ceil((1 - bucket.tokens) / tokensPerMs) };
      }
      bucket.tokens -= 1;
      return {
        isGranted: true,
        release({ wasSent }) {
          if (!wasSent) bucket.tokens = Math.min(burst, bucket.tokens + 1);
        },
      };
    },
  };
}
