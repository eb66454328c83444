/**
 * The Lua scripts of the Redis KeyedLock. Redis runs a script alone, so no other process can act
 * between its reads and writes. The lock itself is the single-instance algorithm of the Redis
 * documentation (https://redis.io/docs/latest/develop/clients/patterns/distributed-locks/):
 * `SET key token NX PX ttl`, released and extended only by the holder of the token.
 *
 * Fair order across processes comes from a queue beside the lock: a sorted set of waiters scored by
 * when their turn was sent (the platform's time, in microseconds; Redis's clock for tasks without
 * one), and a hash of each waiter's heartbeat deadline. Only the waiter at the head may
 * take the lock; a head whose heartbeat lapsed (its process died) is dropped, so the next one moves up.
 * Times come from Redis's own clock (TIME), so processes whose clocks disagree still agree on them.
 */

/** The clock of the Redis server, in milliseconds (now) and microseconds (nowMicros). */
const redisNowMs = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local nowMicros = tonumber(time[1]) * 1000000 + tonumber(time[2])
`;

/** How long the queue bookkeeping of an idle conversation is kept: a day after its last waiter. */
export const queueIdleLifetimeMs = 86_400_000;

/**
 * Joins the queue at the place of `orderMicros` (empty: now, by Redis's clock). KEYS: queue,
 * heartbeats. ARGV: waiterId, waiterTtlMs, idleLifetimeMs, orderMicros. Returns Redis's time in
 * microseconds, as text (Lua would print a large number in exponent form).
 */
export const enqueueScript = `${redisNowMs}
local score = tonumber(ARGV[4]) or nowMicros
redis.call('ZADD', KEYS[1], score, ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], now + tonumber(ARGV[2]))
for i = 1, 2 do redis.call('PEXPIRE', KEYS[i], ARGV[3]) end
return string.format('%.0f', nowMicros)
`;

/**
 * Renews the waiter's heartbeat, drops dead waiters at the head, and takes the lock when the waiter
 * is first in line, nobody holds it, and its turn was sent at least the reorder window ago (a turn
 * sent just before it may still be on its way to another process). KEYS: lock, queue, heartbeats,
 * handover. ARGV: waiterId, lockTtlMs, waiterTtlMs, the id prefix of this process, notBeforeMicros
 * (0: none). Returns { 1, handedOver } when the lock is taken (the trace context its last holder left,
 * taken away, '' when none), { 0, othersAhead, waitMicros, holder, head } while waiting
 * (holders and waiters of other processes ahead of this one; how long until the reorder window is
 * over; the token holding the lock and the first waiter, '' when none), { -1 }
 * when the waiter is no longer queued (its heartbeat lapsed, so it was dropped as dead: it must
 * queue again).
 */
export const tryAcquireScript = `${redisNowMs}
local id, processPrefix = ARGV[1], ARGV[4]
if redis.call('HEXISTS', KEYS[3], id) == 0 or redis.call('ZSCORE', KEYS[2], id) == false then
  redis.call('ZREM', KEYS[2], id)
  redis.call('HDEL', KEYS[3], id)
  return { -1 }
end
redis.call('HSET', KEYS[3], id, now + tonumber(ARGV[3]))
while true do
  local head = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
  if head == id then break end
  local aliveUntil = tonumber(redis.call('HGET', KEYS[3], head) or '0')
  if aliveUntil > now then break end
  redis.call('ZREM', KEYS[2], head)
  redis.call('HDEL', KEYS[3], head)
end
local head = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
local waitMicros = math.max(0, tonumber(ARGV[5]) - nowMicros)
if head == id and waitMicros == 0 and redis.call('SET', KEYS[1], id, 'NX', 'PX', ARGV[2]) then
  redis.call('ZREM', KEYS[2], id)
  redis.call('HDEL', KEYS[3], id)
  local handedOver = redis.call('GET', KEYS[4]) or ''
  if handedOver ~= '' then redis.call('DEL', KEYS[4]) end
  return { 1, handedOver }
end
local othersAhead = 0
local holder = redis.call('GET', KEYS[1])
if holder and string.sub(holder, 1, #processPrefix) ~= processPrefix then othersAhead = 1 end
local rank = redis.call('ZRANK', KEYS[2], id)
if rank > 0 then
  for _, waiter in ipairs(redis.call('ZRANGE', KEYS[2], 0, rank - 1)) do
    if string.sub(waiter, 1, #processPrefix) ~= processPrefix then othersAhead = othersAhead + 1 end
  end
end
return { 0, othersAhead, waitMicros, holder or '', head or '' }
`;

/** Leaves the queue without taking the lock. KEYS: queue, heartbeats. ARGV: waiterId. */
export const leaveQueueScript = `
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
return 1
`;

/**
 * Compare-and-delete. KEYS: lock, handover (optional). ARGV: token, and optionally the trace context
 * to leave for the next holder ('' or absent: none) and how long it is kept (ms). Returns 1 when this
 * token held the lock.
 */
export const releaseScript = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  if ARGV[2] and ARGV[2] ~= '' then redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3]) end
  return redis.call('DEL', KEYS[1])
end
return 0
`;

/** Compare-and-extend. KEYS: lock. ARGV: token, ttlMs. Returns 1 when this token still holds it. */
export const extendScript = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`;
