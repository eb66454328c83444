import type { Acquisition, RateLimit, TokenBucketSize } from './rate-limits.ts';
import type { RedisScriptRunner } from './redis-sliding-window.ts';

/**
 * Refills the bucket for the time since it was last touched, and takes a token when one is there.
 * Times are Redis's own (TIME), the same for every process. The bucket is a hash of `tokens` and
 * `at` (when it was refilled); it expires once it would be full again, so idle keys cost nothing.
 * KEYS: the bucket. ARGV: perMinute, burst.
 * Returns { 1 } when granted, { 0, waitMs } when empty.
 */
const takeScript = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local perMinute, burst = tonumber(ARGV[1]), tonumber(ARGV[2])
local perMs = perMinute / 60000
local stored = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens, at = tonumber(stored[1]), tonumber(stored[2])
if tokens == nil or at == nil then tokens, at = burst, now end
tokens = math.min(burst, tokens + math.max(0, now - at) * perMs)
if tokens < 1 then
  redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', now)
  return { 0, math.ceil((1 - tokens) / perMs) }
end
tokens = tokens - 1
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', now)
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / perMs) + 1000)
return { 1 }
`;

/** Gives back a token of a call that never went out (another limit of the same call refused it). */
const giveBackScript = `
local tokens = tonumber(redis.call('HGET', KEYS[1], 'tokens'))
if tokens == nil then return 0 end
redis.call('HSET', KEYS[1], 'tokens', tostring(math.min(tonumber(ARGV[1]), tokens + 1)))
return 1
`;

export interface RedisTokenBucketOptions extends TokenBucketSize {
  readonly redis: () => Promise<RedisScriptRunner>;
  /** Keeps these keys apart from other users of the same Redis (tests use a unique one). */
  readonly prefix: string;
}

/**
 * The token bucket of `rate-limits.ts` counted in Redis, so every process of a bot spends one
 * budget: Slack counts each Web API method per app and workspace, not per process, so two processes
 * each keeping a whole bucket of their own would together draw 429s. One atomic script a call.
 */
export function createRedisTokenBucket({
  redis,
  prefix,
  perMinute,
  burst,
}: RedisTokenBucketOptions): RateLimit {
  return {
    async tryAcquire(key, nowMs): Promise<Acquisition> {
      const bucketKey = `${prefix}:bucket:${key}`;
      const client = await redis();
      const [isGranted, waitMs = 1] = (await client.eval(takeScript, {
        keys: [bucketKey],
        arguments: [String(perMinute), String(burst)],
      })) as number[];
      if (isGranted !== 1) return { isGranted: false, retryAtMs: nowMs + Math.max(1, waitMs) };
      return {
        isGranted: true,
        async release({ wasSent }) {
          if (wasSent) return;
          await (await redis()).eval(giveBackScript, { keys: [bucketKey], arguments: [String(burst)] });
        },
      };
    },
  };
}
