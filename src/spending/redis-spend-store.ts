import type { BudgetMeasure } from './budget-rules.ts';
import { budgetMeasures, type CounterState, type SpendStore, type ToolCallCounts } from './spend-store.ts';

/** The one Redis command this store needs; @redis/client's `eval` has this shape. */
export interface RedisScriptRunner {
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

/**
 * Hold: for every counter, sum what is spent and what live holds hold (dropping lapsed holds), and
 * refuse at the first measure the amount would overflow; only when all fit, add the hold to each.
 * Redis runs a script alone, so two processes can never both see room that only one of them gets.
 * The states returned include the new hold. Numbers come back as integers; hold values are written from ARGV as given, because Lua 5.1 would
 * print a large number as 1e+12.
 * KEYS: counter, holds (per counter). ARGV: id, nowMs, holdValue, cost, tokens, images, count, then
 * per counter ttlMs and the cost, token and image limits (-1: none).
 */
const holdScript = `
local id, now, holdValue = ARGV[1], tonumber(ARGV[2]), ARGV[3]
local amount = { tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]) }
local count = tonumber(ARGV[7])
local states = {}
for i = 1, count do
  local counterKey, holdsKey = KEYS[2 * i - 1], KEYS[2 * i]
  local s = redis.call('HMGET', counterKey, 'requests', 'promptTokens', 'completionTokens', 'images', 'costNanos')
  local spent = {}
  for j = 1, 5 do spent[j] = tonumber(s[j] or '0') or 0 end
  local held = { 0, 0, 0 }
  local holds = redis.call('HGETALL', holdsKey)
  for j = 1, #holds, 2 do
    local c, t, im, untilMs = string.match(holds[j + 1], '^(%d+):(%d+):(%d+):(%d+)$')
    if c == nil or tonumber(untilMs) <= now then
      redis.call('HDEL', holdsKey, holds[j])
    else
      held[1], held[2], held[3] = held[1] + tonumber(c), held[2] + tonumber(t), held[3] + tonumber(im)
    end
  end
  local used = { spent[5], spent[2] + spent[3], spent[4] }
  local base = 7 + (i - 1) * 4
  for m = 1, 3 do
    local limit = tonumber(ARGV[base + 1 + m])
    if limit >= 0 and amount[m] > 0 and used[m] + held[m] + amount[m] > limit then
      return { 0, i, m, spent[1], spent[2], spent[3], spent[4], spent[5], held[1], held[2], held[3] }
    end
  end
  states[#states + 1] = { spent[1], spent[2], spent[3], spent[4], spent[5], held[1], held[2], held[3] }
end
local reply = { 1 }
for i = 1, count do
  redis.call('HSET', KEYS[2 * i], id, holdValue)
  redis.call('PEXPIRE', KEYS[2 * i], ARGV[7 + (i - 1) * 4 + 1])
  for j = 1, 5 do reply[#reply + 1] = states[i][j] end
  for m = 1, 3 do reply[#reply + 1] = states[i][5 + m] + amount[m] end
end
return reply
`;

/**
 * Settle: drop the hold everywhere it sits, add the spending (and the tool calls) to every counter,
 * and the cost to each ranking member. KEYS: held holds keys, counter keys, ranking keys. ARGV: id,
 * held count, counter count, ranking count, requests, promptTokens, completionTokens, images,
 * costNanos, then the ttl of each counter, then the ttl, member and cost of each ranking, then the number
 * of tools and each tool's name, calls and errors (fields `tool-calls:<name>` and
 * `tool-errors:<name>` of the counter's hash).
 */
const settleScript = `
local id = ARGV[1]
local heldCount, counterCount, rankingCount = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local fields = { 'requests', 'promptTokens', 'completionTokens', 'images', 'costNanos' }
for i = 1, heldCount do redis.call('HDEL', KEYS[i], id) end
local toolBase = 9 + counterCount + rankingCount * 3 + 1
local toolCount = tonumber(ARGV[toolBase] or '0')
for i = 1, counterCount do
  local key = KEYS[heldCount + i]
  for j = 1, 5 do
    if ARGV[4 + j] ~= '0' then redis.call('HINCRBY', key, fields[j], ARGV[4 + j]) end
  end
  for t = 1, toolCount do
    local name = ARGV[toolBase + (t - 1) * 3 + 1]
    redis.call('HINCRBY', key, 'tool-calls:' .. name, ARGV[toolBase + (t - 1) * 3 + 2])
    redis.call('HINCRBY', key, 'tool-errors:' .. name, ARGV[toolBase + (t - 1) * 3 + 3])
  end
  redis.call('PEXPIRE', key, ARGV[9 + i])
end
for i = 1, rankingCount do
  local key = KEYS[heldCount + counterCount + i]
  local argument = 9 + counterCount + (i - 1) * 3
  redis.call('ZINCRBY', key, ARGV[argument + 3], ARGV[argument + 2])
  redis.call('PEXPIRE', key, ARGV[argument + 1])
end
return 1
`;

/** Read: spent and live held of each counter. KEYS: counter, holds (per counter). ARGV: nowMs. */
const readScript = `
local now = tonumber(ARGV[1])
local reply = {}
for i = 1, #KEYS / 2 do
  local s = redis.call('HMGET', KEYS[2 * i - 1], 'requests', 'promptTokens', 'completionTokens', 'images', 'costNanos')
  for j = 1, 5 do reply[#reply + 1] = tonumber(s[j] or '0') or 0 end
  local held = { 0, 0, 0 }
  local holds = redis.call('HGETALL', KEYS[2 * i])
  for j = 1, #holds, 2 do
    local c, t, im, untilMs = string.match(holds[j + 1], '^(%d+):(%d+):(%d+):(%d+)$')
    if c ~= nil and tonumber(untilMs) > now then
      held[1], held[2], held[3] = held[1] + tonumber(c), held[2] + tonumber(t), held[3] + tonumber(im)
    end
  end
  for j = 1, 3 do reply[#reply + 1] = held[j] end
end
return reply
`;

/** The tool-call fields of each counter. KEYS: counters. Reply: per counter, a flat field/value list. */
const readToolCallsScript = `
local reply = {}
for i = 1, #KEYS do
  local fields = {}
  local all = redis.call('HGETALL', KEYS[i])
  for j = 1, #all, 2 do
    if string.sub(all[j], 1, 5) == 'tool-' then
      fields[#fields + 1] = all[j]
      fields[#fields + 1] = all[j + 1]
    end
  end
  reply[i] = fields
end
return reply
`;

/** Drops every tool-call field of each counter; the key keeps its time to live. KEYS: counters. */
const forgetToolCallsScript = `
for i = 1, #KEYS do
  local fields = redis.call('HKEYS', KEYS[i])
  for j = 1, #fields do
    if string.sub(fields[j], 1, 5) == 'tool-' then redis.call('HDEL', KEYS[i], fields[j]) end
  end
end
return 1
`;

const releaseScript = `
for i = 1, #KEYS do redis.call('HDEL', KEYS[i], ARGV[1]) end
return 1
`;

const rankingScript = `return redis.call('ZREVRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1, 'WITHSCORES')`;

/** Moves ARGV[1]'s score to ARGV[2] in every ranking of KEYS; the key keeps its time to live. */
const renameMemberScript = `
for i = 1, #KEYS do
  local score = redis.call('ZSCORE', KEYS[i], ARGV[1])
  if score then
    redis.call('ZREM', KEYS[i], ARGV[1])
    redis.call('ZINCRBY', KEYS[i], score, ARGV[2])
  end
end
return 1`;

/**
 * A SpendStore on Redis, for several bot processes sharing one server: each counter is a hash of
 * what was spent plus a hash of holds by reservation id, and every hold, settle and release is one
 * Lua script, which Redis runs atomically.
 */
export function createRedisSpendStore({
  redis,
  prefix,
}: {
  /** Resolves with a connected client. */
  redis: () => Promise<RedisScriptRunner>;
  /** Put before every key, e.g. `parley:spend`. */
  prefix: string;
}): SpendStore {
  const counterKeys = (key: string) => [`${prefix}:counter:${key}`, `${prefix}:holds:${key}`];
  const run = async (script: string, keys: string[], parameters: readonly (string | number)[]) =>
    (await redis()).eval(script, { keys, arguments: parameters.map(String) });
  return {
    async hold(request) {
      const { amount } = request;
      const limitArguments = request.counters.flatMap((counter) => [
        counter.ttlMs,
        ...budgetMeasures.map((measure) => Math.floor(counter.limits[measure] ?? -1)),
      ]);
      const reply = numbersOf(
        await run(
          holdScript,
          request.counters.flatMap((counter) => counterKeys(counter.key)),
          [
            request.reservationId,
            request.nowMs,
            `${amount.costNanos}:${amount.tokens}:${amount.images}:${request.holdUntilMs}`,
            amount.costNanos,
            amount.tokens,
            amount.images,
            request.counters.length,
            ...limitArguments,
          ],
        ),
      );
      if (reply[0] === 0) {
        return {
          isHeld: false,
          counterIndex: (reply[1] ?? 1) - 1,
          measure: budgetMeasures[(reply[2] ?? 1) - 1] as BudgetMeasure,
          state: stateFrom(reply.slice(3)),
        };
      }
      const states: CounterState[] = [];
      for (let index = 1; index < reply.length; index += 8)
        states.push(stateFrom(reply.slice(index, index + 8)));
      return { isHeld: true, states };
    },
    async settle(request) {
      const { spent } = request;
      await run(
        settleScript,
        [
          ...request.heldCounters.map((counter) => `${prefix}:holds:${counter.key}`),
          ...request.counters.map((counter) => `${prefix}:counter:${counter.key}`),
          ...request.rankings.map((ranking) => `${prefix}:ranking:${ranking.key}`),
        ],
        [
          request.reservationId,
          request.heldCounters.length,
          request.counters.length,
          request.rankings.length,
          spent.requests,
          spent.promptTokens,
          spent.completionTokens,
          spent.images,
          spent.costNanos,
          ...request.counters.map((counter) => counter.ttlMs),
          ...request.rankings.flatMap((ranking) => [
            ranking.ttlMs,
            ranking.member,
            ranking.costNanos ?? spent.costNanos,
          ]),
          ...toolCallArguments(request.toolCalls ?? {}),
        ],
      );
    },
    async release({ reservationId, heldCounters }) {
      if (heldCounters.length === 0) return;
      await run(
        releaseScript,
        heldCounters.map((counter) => `${prefix}:holds:${counter.key}`),
        [reservationId],
      );
    },
    async read({ keys, nowMs }) {
      if (keys.length === 0) return [];
      const reply = numbersOf(await run(readScript, keys.flatMap(counterKeys), [nowMs]));
      return keys.map((_, index) => stateFrom(reply.slice(index * 8, index * 8 + 8)));
    },
    async readToolCalls({ keys }) {
      if (keys.length === 0) return [];
      const reply = await run(
        readToolCallsScript,
        keys.map((key) => `${prefix}:counter:${key}`),
        [],
      );
      if (!Array.isArray(reply)) throw new Error(`unexpected reply from a spend script: ${String(reply)}`);
      return keys.map((_, index) => toolCallsFrom(reply[index]));
    },
    async forgetToolCalls({ keys }) {
      if (keys.length === 0) return;
      await run(
        forgetToolCallsScript,
        keys.map((key) => `${prefix}:counter:${key}`),
        [],
      );
    },
    async renameRankingMember({ keys, member, to }) {
      if (keys.length === 0) return;
      await run(
        renameMemberScript,
        keys.map((key) => `${prefix}:ranking:${key}`),
        [member, to],
      );
    },
    async readRanking({ key, count }) {
      const reply = (await run(rankingScript, [`${prefix}:ranking:${key}`], [count])) as unknown[];
      const ranked = [];
      for (let index = 0; index + 1 < reply.length; index += 2) {
        ranked.push({ member: String(reply[index]), costNanos: Number(reply[index + 1]) });
      }
      return ranked;
    },
  };
}

// The number of tools, then each one's name, calls and errors, as the settle script reads them.
function toolCallArguments(toolCalls: ToolCallCounts): (string | number)[] {
  const entries = Object.entries(toolCalls);
  return [entries.length, ...entries.flatMap(([name, count]) => [name, count.calls, count.errors])];
}

// A counter's `tool-calls:<name>` and `tool-errors:<name>` fields, as counts by tool name.
function toolCallsFrom(fields: unknown): ToolCallCounts {
  const counts: Record<string, { calls: number; errors: number }> = {};
  const list = Array.isArray(fields) ? fields.map(String) : [];
  for (let index = 0; index + 1 < list.length; index += 2) {
    const match = /^tool-(calls|errors):(.+)$/.exec(list[index] ?? '');
    if (!match?.[2]) continue;
    const count = counts[match[2]] ?? { calls: 0, errors: 0 };
    count[match[1] === 'calls' ? 'calls' : 'errors'] = Number(list[index + 1]);
    counts[match[2]] = count;
  }
  return counts;
}

function numbersOf(reply: unknown): number[] {
  if (!Array.isArray(reply)) throw new Error(`unexpected reply from a spend script: ${String(reply)}`);
  return reply.map(Number);
}

// requests, promptTokens, completionTokens, images, costNanos, then held cost, tokens, images.
function stateFrom(values: readonly number[]): CounterState {
  const [requests = 0, promptTokens = 0, completionTokens = 0, images = 0, costNanos = 0] = values;
  const [heldCost = 0, heldTokens = 0, heldImages = 0] = values.slice(5);
  return {
    spent: { requests, promptTokens, completionTokens, images, costNanos },
    held: { costNanos: heldCost, tokens: heldTokens, images: heldImages },
  };
}
