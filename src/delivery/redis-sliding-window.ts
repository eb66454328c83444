import { randomUUID } from 'node:crypto';

/**
 * The shape of a rate limit the outbound queue draws on (see the in-process windows beside it): ask
 * for a slot, and give it back when the call's response arrived. Declared here structurally so this
 * file stands alone; the outbound queue's `RateLimit` has the same shape.
 */
export interface SharedRateLimit {
  tryAcquire(key: string, nowMs: number): Promise<SharedAcquisition>;
  learn(key: string, window: { readonly limit: number; readonly windowMs: number }): void;
}

export type SharedAcquisition =
  | {
      readonly isGranted: true;
      release(outcome: { readonly endedAtMs: number; readonly wasSent: boolean }): Promise<void>;
    }
  | { readonly isGranted: false; readonly retryAtMs: number };

/** The one Redis command this window needs; @redis/client's `eval` has this shape. */
export interface RedisScriptRunner {
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

/**
 * Drops the slots whose time is over, and takes one when fewer than `limit` are left. A slot's score
 * is when it stops counting: for a call in flight, the lease (a process that died mid-call cannot
 * hold a slot longer); once its response arrived, one window after that (the platform may count a
 * call as late as its arrival). Times are Redis's own (TIME), the same for every process.
 * KEYS: the window. ARGV: slotId, limit, windowMs, leaseMs.
 * Returns { 1, nowMs } when granted, { 0, nowMs, retryAtMs } when full.
 */
const acquireScript = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local limit, windowMs, leaseMs = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) < limit then
  redis.call('ZADD', KEYS[1], now + leaseMs, ARGV[1])
  redis.call('PEXPIRE', KEYS[1], leaseMs + windowMs)
  return { 1, now }
end
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return { 0, now, tonumber(first[2]) }
`;

/**
 * The call is over. Sent: the slot counts until one window from now. Never sent: the slot is given
 * back. KEYS: the window. ARGV: slotId, windowMs, wasSent (1/0).
 */
const releaseScript = `
if ARGV[3] == '0' then return redis.call('ZREM', KEYS[1], ARGV[1]) end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
if redis.call('ZSCORE', KEYS[1], ARGV[1]) == false then return 0 end
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 2)
return 1
`;

export interface RedisSlidingWindowOptions {
  readonly redis: () => Promise<RedisScriptRunner>;
  /** Keeps these keys apart from other users of the same Redis (tests use a unique one). */
  readonly prefix: string;
  readonly limit: number;
  readonly windowMs: number;
  /** The longest a call may be in flight before its slot is taken back (a process that died). */
  readonly leaseMs?: number;
}

/**
 * A sliding window counted in Redis, so every process of a bot spends one budget: at most `limit`
 * calls in any `windowMs` per key, whichever process makes them. Each acquisition is one atomic
 * script (drop the expired, count, add); each release one more.
 */
export function createRedisSlidingWindow({
  redis,
  prefix,
  limit,
  windowMs,
  leaseMs = 30_000,
}: RedisSlidingWindowOptions): SharedRateLimit {
  const learned = new Map<string, { limit: number; windowMs: number }>();
  return {
    learn(key, window) {
      if (window.limit >= 1 && window.windowMs > 0) learned.set(key, { ...window });
    },
    async tryAcquire(key, nowMs) {
      const size = learned.get(key) ?? { limit, windowMs };
      const slotId = randomUUID();
      const windowKey = `${prefix}:window:${key}`;
      const client = await redis();
      const answer = (await client.eval(acquireScript, {
        keys: [windowKey],
        arguments: [slotId, String(size.limit), String(size.windowMs), String(leaseMs)],
      })) as number[];
      const [isGranted, redisNowMs = 0, freedAtMs = 0] = answer;
      if (isGranted !== 1) {
        // Slots of other processes free without telling this one: ask again when the first one is
        // due, or after one call's share of the window, whichever comes first.
        const waitMs = Math.max(1, Math.min(freedAtMs - redisNowMs, size.windowMs / size.limit));
        return { isGranted: false, retryAtMs: nowMs + waitMs };
      }
      return {
        isGranted: true,
        async release({ wasSent }) {
          await (await redis()).eval(releaseScript, {
            keys: [windowKey],
            arguments: [slotId, String(size.windowMs), wasSent ? '1' : '0'],
          });
        },
      };
    },
  };
}
