import type { Keyv } from 'keyv';
import { z } from 'zod';
import type { KeyedLock } from '../state/keyed-lock.ts';
import { createSpendRecordCache, type SpendRecordCache } from './spend-record-cache.ts';
import {
  addToolCalls,
  type CounterState,
  noAmount,
  noSpending,
  overflowingMeasure,
  type SpendAmount,
  type SpendStore,
} from './spend-store.ts';

const amountSchema = z.object({ costNanos: z.number(), tokens: z.number(), images: z.number() });
const counterRecordSchema = z.object({
  spent: z.object({
    requests: z.number(),
    promptTokens: z.number(),
    completionTokens: z.number(),
    images: z.number(),
    costNanos: z.number(),
  }),
  /**
   * Holds of requests in flight, as records written before holds moved into the process (see
   * `createKeyvSpendStore`); read, never written, so an older file still parses.
   */
  holds: z.record(z.string(), amountSchema.extend({ untilMs: z.number() })).optional(),
  /** By tool name; absent in a record written before tool calls were counted, which reads as none. */
  toolCalls: z.record(z.string(), z.object({ calls: z.number(), errors: z.number() })).optional(),
});
type CounterRecord = Readonly<z.infer<typeof counterRecordSchema>>;
const rankingSchema = z.record(z.string(), z.number());
/** A ranking's scores by member; kept in the cache, so it is copied, never changed in place. */
type Ranking = Readonly<Record<string, number>>;
type Hold = SpendAmount & { readonly untilMs: number };

/** Every change runs under this one key: a hold reads and writes several counters as one step. */
const lockKey = 'spend';

/**
 * Counter records kept parsed in the process: a reply touches about a dozen (its person, conversation,
 * channel, server and process, by day and month), so this covers a few hundred people writing at once.
 */
const defaultCachedCounterLimit = 4_000;
/** Ranking records kept parsed: four per server a reply is in (users and channels, by day and month). */
const defaultCachedRankingLimit = 1_000;

/**
 * A SpendStore on a keyv store (memory, SQLite or Postgres) for one bot process: each counter's
 * spending is one record, and every change runs under one in-process lock, so a check and its hold
 * cannot interleave with another request's. The holds of requests in flight live in the process, not
 * in the records: only this process makes them, they end with it, and writing them made every hold
 * and settle read and rewrite a record that grew with the replies in flight (200 replies at once:
 * 200 holds in the workspace's record, rewritten 400 times; docs/benchmarks.md, issue 24). Several
 * processes must share a Redis instead (redis-spend-store.ts).
 *
 * The parsed counter and ranking records are kept in the process too (write-through), so a hold or
 * settle of a record in use reads no store and parses nothing (issue 24: keyv's deserialize and zod
 * on every reply). That is correct because this process is the only writer of these records: every
 * write is made here, under the lock, and puts what it wrote in the cache, expiring when the stored
 * copy does (the counter's or ranking's TTL, taken just before keyv takes its own, so never later).
 * A record absent from the store stays absent until this process writes it, so absence is kept too.
 * Nothing else writes the `counter:` and `ranking:` keys of this namespace (/export and /forget go
 * through this store; the deduper sharing the namespace writes only `sighting:`; the retention sweep
 * and dropExpired only remove records already past their expiry). It would break if another
 * process, a script or an operator wrote these keys while this one runs (two processes on one SQLite
 * file or Postgres are already unsupported: their holds would not see each other). A write that
 * failed (a store that timed out may still write it later) leaves its key distrusted: reads of it go
 * to the store and are not kept until a write of it succeeds, so a late write is read as it lands,
 * as before the cache, rather than overwritten by a settle building on an older kept value.
 *
 * Only reads under the lock (hold, settle) fill the cache on a miss: a read outside it could fetch a
 * record, lose the race to a settle that writes and caches a newer one, and then put back the older.
 * `read`, `readToolCalls` and `readRanking` use a cached record when there is one and otherwise read
 * the store.
 */
export function createKeyvSpendStore({
  store,
  lock,
  cachedCounterLimit = defaultCachedCounterLimit,
  cachedRankingLimit = defaultCachedRankingLimit,
}: {
  store: Keyv;
  lock: KeyedLock;
  /** At most this many parsed counter records stay in memory (least recently used go first). */
  cachedCounterLimit?: number;
  /** At most this many parsed ranking records stay in memory. */
  cachedRankingLimit?: number;
}): SpendStore {
  const holdsByCounter = new Map<string, Map<string, Hold>>();
  const cachedCounters = createSpendRecordCache<CounterRecord>({ maxRecords: cachedCounterLimit });
  const cachedRankings = createSpendRecordCache<Ranking>({ maxRecords: cachedRankingLimit });
  /** When a record written now with `ttlMs` expires in the store, as keyv reckons it (its default TTL included). */
  const expiresAtOf = (ttlMs: number | undefined): number | undefined => {
    const effectiveTtlMs = ttlMs ?? store.ttl;
    return typeof effectiveTtlMs === 'number' && effectiveTtlMs !== 0
      ? Date.now() + effectiveTtlMs
      : undefined;
  };
  /** Writes a record and keeps it; a write that failed leaves nothing cached, so the store is read again. */
  const writeThrough = async <Value>(
    cache: SpendRecordCache<Value>,
    key: string,
    storeKey: string,
    value: Value,
    ttlMs: number | undefined,
  ): Promise<void> => {
    const expiresAtMs = expiresAtOf(ttlMs);
    try {
      const isWritten = await store.set(storeKey, value, ttlMs);
      if (isWritten === false) cache.distrust(key);
      else cache.set(key, value, expiresAtMs);
    } catch (error) {
      cache.distrust(key);
      throw error;
    }
  };
  const readRecords = async (
    keys: readonly string[],
    { fillsCache }: { fillsCache: boolean },
  ): Promise<CounterRecord[]> => {
    const nowMs = Date.now();
    const records = keys.map((key) => cachedCounters.get(key, nowMs));
    const missingIndexes = records.flatMap((record, index) => (record === undefined ? [index] : []));
    if (missingIndexes.length > 0) {
      const missingKeys = missingIndexes.map((index) => keys[index] ?? '');
      const stored = await store.getManyRaw(missingKeys.map((key) => `counter:${key}`));
      for (const [position, index] of missingIndexes.entries()) {
        const raw = stored[position];
        const parsed = counterRecordSchema.safeParse(raw?.value);
        const record = parsed.success ? parsed.data : { spent: { ...noSpending } };
        records[index] = record;
        if (fillsCache) {
          cachedCounters.fill(missingKeys[position] ?? '', record, expiresAtOfStored(raw?.expires));
        }
      }
    }
    return records.map((record) => record ?? { spent: { ...noSpending } });
  };
  const readRanking = async (key: string, { fillsCache }: { fillsCache: boolean }): Promise<Ranking> => {
    const cached = cachedRankings.get(key, Date.now());
    if (cached !== undefined) return cached;
    const raw = await store.getRaw(`ranking:${key}`);
    const parsed = rankingSchema.safeParse(raw?.value);
    const ranking = parsed.success ? parsed.data : {};
    if (fillsCache) cachedRankings.fill(key, ranking, expiresAtOfStored(raw?.expires));
    return ranking;
  };
  const liveHoldsOf = (key: string, nowMs: number): Map<string, Hold> => {
    const holds = holdsByCounter.get(key) ?? new Map<string, Hold>();
    for (const [reservationId, hold] of holds) if (hold.untilMs <= nowMs) holds.delete(reservationId);
    if (holds.size === 0) holdsByCounter.delete(key);
    return holds;
  };
  const stateOf = (key: string, record: CounterRecord, nowMs: number): CounterState => {
    const held = [...liveHoldsOf(key, nowMs).values(), ...Object.values(record.holds ?? {})]
      .filter((hold) => hold.untilMs > nowMs)
      .reduce<SpendAmount>(addAmounts, noAmount);
    return { spent: record.spent, held };
  };
  const dropHold = (key: string, reservationId: string) => {
    const holds = holdsByCounter.get(key);
    holds?.delete(reservationId);
    if (holds?.size === 0) holdsByCounter.delete(key);
  };
  return {
    hold: (request) =>
      lock.run(lockKey, async () => {
        const keys = request.counters.map((counter) => counter.key);
        const records = await readRecords(keys, { fillsCache: true });
        const states = records.map((record, index) => stateOf(keys[index] ?? '', record, request.nowMs));
        for (const [index, counter] of request.counters.entries()) {
          const state = states[index] ?? { spent: noSpending, held: noAmount };
          const measure = overflowingMeasure({ state, amount: request.amount, limits: counter.limits });
          if (measure) return { isHeld: false as const, counterIndex: index, measure, state };
        }
        for (const key of keys) {
          const holds = holdsByCounter.get(key) ?? new Map<string, Hold>();
          holds.set(request.reservationId, { ...request.amount, untilMs: request.holdUntilMs });
          holdsByCounter.set(key, holds);
        }
        return {
          isHeld: true as const,
          states: states.map((state) => ({
            spent: state.spent,
            held: addAmounts(state.held, request.amount),
          })),
        };
      }),
    settle: (request) =>
      lock.run(lockKey, async () => {
        const records = await readRecords(
          request.counters.map((counter) => counter.key),
          { fillsCache: true },
        );
        const writes = request.counters.map((counter, index) => {
          const record = records[index] ?? { spent: { ...noSpending } };
          const spent = {
            requests: record.spent.requests + request.spent.requests,
            promptTokens: record.spent.promptTokens + request.spent.promptTokens,
            completionTokens: record.spent.completionTokens + request.spent.completionTokens,
            images: record.spent.images + request.spent.images,
            costNanos: record.spent.costNanos + request.spent.costNanos,
          };
          const toolCalls = addToolCalls(record.toolCalls ?? {}, request.toolCalls ?? {});
          return writeThrough(
            cachedCounters,
            counter.key,
            `counter:${counter.key}`,
            { spent, toolCalls },
            counter.ttlMs,
          );
        });
        // Every write is waited for, failed or not, before the lock is let go: a write still under way
        // when the next hold reads (and caches) the record could leave the cache behind the store.
        const outcomes = await Promise.allSettled([
          ...writes,
          ...request.rankings.map(async (ranking) => {
            const scores = await readRanking(ranking.key, { fillsCache: true });
            const updated = {
              ...scores,
              [ranking.member]: (scores[ranking.member] ?? 0) + request.spent.costNanos,
            };
            await writeThrough(cachedRankings, ranking.key, `ranking:${ranking.key}`, updated, ranking.ttlMs);
          }),
        ]);
        const failure = outcomes.find((outcome) => outcome.status === 'rejected');
        if (failure) throw failure.reason;
        // Only once the spending is written: a write that fails leaves the hold to stand for the
        // request until it expires, so what it cost is not forgotten meanwhile.
        for (const counter of [...request.counters, ...request.heldCounters]) {
          dropHold(counter.key, request.reservationId);
        }
      }),
    release: ({ reservationId, heldCounters }) =>
      lock.run(lockKey, async () => {
        for (const counter of heldCounters) dropHold(counter.key, reservationId);
      }),
    async read({ keys, nowMs }) {
      const records = await readRecords(keys, { fillsCache: false });
      return records.map((record, index) => stateOf(keys[index] ?? '', record, nowMs));
    },
    async readToolCalls({ keys }) {
      return (await readRecords(keys, { fillsCache: false })).map((record) => record.toolCalls ?? {});
    },
    forgetToolCalls: ({ keys }) =>
      lock.run(lockKey, async () => {
        for (const key of keys) {
          // From the store, not the cache: the remaining TTL is the stored record's (/forget is rare).
          const raw = await store.getRaw(`counter:${key}`);
          const parsed = counterRecordSchema.safeParse(raw?.value);
          if (!parsed.success || parsed.data.toolCalls === undefined) continue;
          const { toolCalls: _forgotten, ...rest } = parsed.data;
          // Kept until the counter's own end, as its last settle set it.
          const ttlMs = typeof raw?.expires === 'number' ? Math.max(1, raw.expires - Date.now()) : undefined;
          await writeThrough(cachedCounters, key, `counter:${key}`, rest, ttlMs);
        }
      }),
    renameRankingMember: ({ keys, member, to }) =>
      lock.run(lockKey, async () => {
        for (const key of keys) {
          const raw = await store.getRaw(`ranking:${key}`);
          const parsed = rankingSchema.safeParse(raw?.value);
          const score = parsed.success ? parsed.data[member] : undefined;
          if (!parsed.success || score === undefined) continue;
          const scores = { ...parsed.data, [to]: (parsed.data[to] ?? 0) + score };
          delete scores[member];
          // Kept until the ranking's own end, as its settle set it.
          const ttlMs = typeof raw?.expires === 'number' ? Math.max(1, raw.expires - Date.now()) : undefined;
          await writeThrough(cachedRankings, key, `ranking:${key}`, scores, ttlMs);
        }
      }),
    async readRanking({ key, count }) {
      const scores = await readRanking(key, { fillsCache: false });
      return Object.entries(scores)
        .map(([member, costNanos]) => ({ member, costNanos }))
        .sort((first, second) => second.costNanos - first.costNanos)
        .slice(0, count);
    },
  };
}

/** The expiry keyv stored with a record (absent, or null from some adapters, when it has none). */
function expiresAtOfStored(expires: number | null | undefined): number | undefined {
  return typeof expires === 'number' ? expires : undefined;
}

function addAmounts(first: SpendAmount, second: SpendAmount): SpendAmount {
  return {
    costNanos: first.costNanos + second.costNanos,
    tokens: first.tokens + second.tokens,
    images: first.images + second.images,
  };
}
