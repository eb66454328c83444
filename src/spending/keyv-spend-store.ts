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
  type SettleRequest,
  type SpendAmount,
  type SpendStore,
  type SpentTotals,
} from './spend-store.ts';

const amountSchema = z.object({ costNanos: z.number(), tokens: z.number(), images: z.number() });
const spentSchema = z.object({
  requests: z.number(),
  promptTokens: z.number(),
  completionTokens: z.number(),
  images: z.number(),
  costNanos: z.number(),
});
const toolCallsSchema = z.record(z.string(), z.object({ calls: z.number(), errors: z.number() }));
/** A counter as it was stored before its scope's day and month shared a record (`counter:<key>`). */
const legacyCounterRecordSchema = z.object({
  spent: spentSchema,
  /**
   * Holds of requests in flight, as records written before holds moved into the process (see
   * `createKeyvSpendStore`); read, never written, so an older file still parses. They lapsed long ago.
   */
  holds: z.record(z.string(), amountSchema.extend({ untilMs: z.number() })).optional(),
  /** By tool name; absent in a record written before tool calls were counted, which reads as none. */
  toolCalls: toolCallsSchema.optional(),
});
/** One counter inside a tally record: its spending, its tool calls, and when it lapses on its own. */
const counterEntrySchema = z.object({
  spent: spentSchema,
  toolCalls: toolCallsSchema.optional(),
  /** The counter's own end (its period's TTL from its last change); absent: it has none. */
  expiresAtMs: z.number().optional(),
});
/** The counters of one scope and month, by counter key (`tally:<group>`, see `tallyGroupOf`). */
const tallyRecordSchema = z.object({ counters: z.record(z.string(), counterEntrySchema) });
type CounterEntry = Readonly<z.infer<typeof counterEntrySchema>>;
/** A tally record as kept in the process; copied on change, never changed in place. */
type TallyRecord = { readonly counters: Readonly<Record<string, CounterEntry>> };
const rankingSchema = z.record(z.string(), z.number());
/** A ranking's scores by member; kept in the cache, so it is copied, never changed in place. */
type Ranking = Readonly<Record<string, number>>;
type Hold = SpendAmount & { readonly untilMs: number };

/**
 * Each ranking a settle moves, once: several members of one ranking (the models of a reply) gain
 * their share in the same written record.
 */
function rankingWrites(request: SettleRequest, before: readonly (Ranking | undefined)[]) {
  const moved = new Map<string, { scores: Record<string, number>; ttlMs: number }>();
  for (const [index, ranking] of request.rankings.entries()) {
    const entry = moved.get(ranking.key) ?? { scores: { ...before[index] }, ttlMs: ranking.ttlMs };
    entry.scores[ranking.member] =
      (entry.scores[ranking.member] ?? 0) + (ranking.costNanos ?? request.spent.costNanos);
    moved.set(ranking.key, entry);
  }
  return [...moved].map(([key, { scores, ttlMs }]) => ({
    key,
    storeKey: `ranking:${key}`,
    value: scores,
    ttlMs,
  }));
}

/** Every change runs under this one key: a hold reads and writes several counters as one step. */
const lockKey = 'spend';

/**
 * Tally records kept parsed in the process: a reply touches five or so (its person, conversation,
 * channel, server and process, each a record for its day and month), so this covers a few hundred
 * people writing at once.
 */
const defaultCachedCounterLimit = 4_000;
/** Ranking records kept parsed: four per server a reply is in (users and channels, by day and month). */
const defaultCachedRankingLimit = 1_000;

const noEntry: CounterEntry = { spent: noSpending };
const noTally: TallyRecord = { counters: {} };

/** Where an earlier version kept each counter, a record of its own; migrated once (see there). */
const legacyCounterPrefix = 'counter:';
/** The record that says which layout the store's records are in; absent: maybe the earlier one. */
const layoutKey = 'layout';
const currentLayout = 'tally';
/** Old records migrated a batch at a time: a year of a busy server is tens of thousands. */
const legacyMigrationBatch = 500;

/**
 * A SpendStore on a keyv store (memory, SQLite or Postgres) for one bot process. A scope's counters
 * of one month (its month and each of its days) are one record, `tally:<scope>:<month>`, each counter
 * in it with its own end, and a settle writes every record it changed and the rankings in one
 * `setMany`: one write a reply, where a record per counter and ranking made 14 (issue 39). The
 * records an earlier version kept per counter (`counter:<key>`) are moved into their tallies once,
 * before the store's first use after the upgrade (`migrateLegacyCounters`), so nobody's budget
 * starts over; see `tallyGroupOf` for which tally a counter is in.
 *
 * Every change runs under one in-process lock, so a check and its hold cannot interleave with
 * another request's. The holds of requests in flight live in the process, not in the records: only
 * this process makes them, they end with it, and writing them made every hold and settle read and
 * rewrite a record that grew with the replies in flight (200 replies at once: 200 holds in the
 * workspace's record, rewritten 400 times; docs/benchmarks.md, issue 24). Several processes must
 * share a Redis instead (redis-spend-store.ts).
 *
 * The parsed tally and ranking records are kept in the process too (write-through), so a hold or
 * settle of a record in use reads no store and parses nothing (issue 24: keyv's deserialize and zod
 * on every reply). That is correct because this process is the only writer of these records: every
 * write is made here, under the lock, and puts what it wrote in the cache, expiring when the stored
 * copy does (the record's or ranking's TTL, taken just before keyv takes its own, so never later).
 * A record absent from the store stays absent until this process writes it, so absence is kept too.
 * Nothing else writes the `tally:`, `counter:` and `ranking:` keys of this namespace (/export and
 * /forget go through this store; the deduper sharing the namespace writes only `sighting:`; the
 * retention sweep and dropExpired only remove records already past their expiry). It would break if
 * another process, a script or an operator wrote these keys while this one runs (two processes on
 * one SQLite file or Postgres are already unsupported: their holds would not see each other). A
 * write that failed (a store that timed out may still write it later) leaves its keys distrusted:
 * reads of them go to the store and are not kept until a write of them succeeds, so a late write is
 * read as it lands, as before the cache, rather than overwritten by a settle building on an older
 * kept value.
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
  /** At most this many parsed tally records stay in memory (least recently used go first). */
  cachedCounterLimit?: number;
  /** At most this many parsed ranking records stay in memory. */
  cachedRankingLimit?: number;
}): SpendStore {
  const holdsByCounter = new Map<string, Map<string, Hold>>();
  const cachedTallies = createSpendRecordCache<TallyRecord>({ maxRecords: cachedCounterLimit });
  const cachedRankings = createSpendRecordCache<Ranking>({ maxRecords: cachedRankingLimit });
  /** When a record written now with `ttlMs` expires in the store, as keyv reckons it (its default TTL included). */
  const expiresAtOf = (ttlMs: number | undefined, nowMs = Date.now()): number | undefined => {
    const effectiveTtlMs = ttlMs ?? store.ttl;
    return typeof effectiveTtlMs === 'number' && effectiveTtlMs !== 0 ? nowMs + effectiveTtlMs : undefined;
  };
  /**
   * Writes records and keeps them, in one store call; a write that failed leaves none of them
   * cached (any of them may have landed), so the store is read again.
   */
  const writeAllThrough = async (
    writes: ReadonlyArray<{
      cache: SpendRecordCache<TallyRecord> | SpendRecordCache<Ranking>;
      key: string;
      storeKey: string;
      value: TallyRecord | Ranking;
      ttlMs: number | undefined;
    }>,
  ): Promise<void> => {
    if (writes.length === 0) return;
    const nowMs = Date.now();
    const expiries = writes.map((write) => expiresAtOf(write.ttlMs, nowMs));
    const distrustAll = () => {
      for (const write of writes) write.cache.distrust(write.key);
    };
    try {
      const results = await store.setMany(
        writes.map((write) => ({
          key: write.storeKey,
          value: write.value,
          ...(write.ttlMs === undefined ? {} : { ttl: write.ttlMs }),
        })),
      );
      // keyv answers a list of booleans, or (an adapter's own setMany) nothing when all went through.
      if (Array.isArray(results) && results.some((result) => result === false)) {
        distrustAll();
        return;
      }
      for (const [index, write] of writes.entries()) {
        (write.cache as SpendRecordCache<unknown>).set(write.key, write.value, expiries[index]);
      }
    } catch (error) {
      distrustAll();
      throw error;
    }
  };
  /** The tally records of `groupKeys`, from the cache or the store (one getMany); absent ones empty. */
  const readTallies = async (
    groupKeys: readonly string[],
    { fillsCache }: { fillsCache: boolean },
  ): Promise<Map<string, TallyRecord>> => {
    await migrated();
    const nowMs = Date.now();
    const tallies = new Map<string, TallyRecord>();
    const missing: string[] = [];
    for (const groupKey of groupKeys) {
      const cached = cachedTallies.get(groupKey, nowMs);
      if (cached === undefined) missing.push(groupKey);
      else tallies.set(groupKey, cached);
    }
    if (missing.length === 0) return tallies;
    const stored = await store.getManyRaw(missing.map((groupKey) => `tally:${groupKey}`));
    for (const [index, groupKey] of missing.entries()) {
      const raw = stored[index];
      const parsed = tallyRecordSchema.safeParse(raw?.value);
      const tally = parsed.success ? parsed.data : noTally;
      tallies.set(groupKey, tally);
      if (fillsCache) cachedTallies.fill(groupKey, tally, expiresAtOfStored(raw?.expires));
    }
    return tallies;
  };
  /**
   * Migration, once, before the store's first use after an upgrade: every counter an earlier
   * version kept as a record of its own (`counter:<key>`, with its spending, tool calls and end) is
   * put into its tally, and the old record goes; then a `layout` record says it is done, so a start
   * after that reads one record for it. A counter already in its tally is left as it is there, so a
   * migration cut short (a crash) and run again counts nothing twice. Holds no lock of the store's:
   * every other use of the store waits for it.
   */
  const migrateLegacyCounters = async (): Promise<void> => {
    if ((await store.get(layoutKey)) === currentLayout) return;
    const legacyKeys: string[] = [];
    // A store that cannot be walked (keyv's memory Map can; a memory store has no earlier version).
    for await (const [key] of store.iterator?.(undefined) ?? []) {
      if (typeof key === 'string' && key.startsWith(legacyCounterPrefix)) legacyKeys.push(key);
    }
    for (let start = 0; start < legacyKeys.length; start += legacyMigrationBatch) {
      const batch = legacyKeys.slice(start, start + legacyMigrationBatch);
      const raws = await store.getManyRaw(batch);
      const byGroup = new Map<string, Array<[string, CounterEntry]>>();
      for (const [index, storeKey] of batch.entries()) {
        const raw = raws[index];
        const parsed = legacyCounterRecordSchema.safeParse(raw?.value);
        if (!parsed.success) continue;
        const key = storeKey.slice(legacyCounterPrefix.length);
        const expiresAtMs = expiresAtOfStored(raw?.expires);
        const entry: CounterEntry = {
          spent: parsed.data.spent,
          ...(parsed.data.toolCalls === undefined ? {} : { toolCalls: parsed.data.toolCalls }),
          ...(expiresAtMs === undefined ? {} : { expiresAtMs }),
        };
        const groupKey = tallyGroupOf(key).key;
        byGroup.set(groupKey, [...(byGroup.get(groupKey) ?? []), [key, entry]]);
      }
      const groupKeys = [...byGroup.keys()];
      const storedTallies = await store.getManyRaw(groupKeys.map((groupKey) => `tally:${groupKey}`));
      const nowMs = Date.now();
      const writes = groupKeys.map((groupKey, index) => {
        const parsed = tallyRecordSchema.safeParse(storedTallies[index]?.value);
        const counters = liveCounters(parsed.success ? parsed.data : undefined, nowMs);
        for (const [key, entry] of byGroup.get(groupKey) ?? []) counters[key] ??= entry;
        const ttlMs = ttlOfTally(counters, nowMs);
        return {
          key: `tally:${groupKey}`,
          value: { counters },
          ...(ttlMs === undefined ? {} : { ttl: ttlMs }),
        };
      });
      if (writes.length > 0) await store.setMany(writes);
      await store.deleteMany(batch);
    }
    await store.set(layoutKey, currentLayout);
  };
  let migration: Promise<void> | undefined;
  /** Resolves once the store holds no record of an earlier layout; a failed migration is tried again. */
  const migrated = (): Promise<void> => {
    migration ??= migrateLegacyCounters().catch((error: unknown) => {
      migration = undefined;
      throw error;
    });
    return migration;
  };
  /** Each counter's entry (none, or lapsed: nothing spent), in the order of `keys`. */
  const readEntries = async (
    keys: readonly string[],
    { fillsCache }: { fillsCache: boolean },
  ): Promise<{ entries: CounterEntry[]; tallies: Map<string, TallyRecord> }> => {
    const tallies = await readTallies([...new Set(keys.map((key) => tallyGroupOf(key).key))], { fillsCache });
    const nowMs = Date.now();
    const entries = keys.map((key) => liveEntry(tallies.get(tallyGroupOf(key).key), key, nowMs));
    return { entries, tallies };
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
  const stateOf = (key: string, entry: CounterEntry, nowMs: number): CounterState => {
    const held = [...liveHoldsOf(key, nowMs).values()].reduce<SpendAmount>(addAmounts, noAmount);
    return { spent: entry.spent, held };
  };
  const dropHold = (key: string, reservationId: string) => {
    const holds = holdsByCounter.get(key);
    holds?.delete(reservationId);
    if (holds?.size === 0) holdsByCounter.delete(key);
  };
  /** A tally's write: its counters, kept until the last of them ends. */
  const tallyWrite = (groupKey: string, counters: Record<string, CounterEntry>, nowMs: number) => ({
    cache: cachedTallies,
    key: groupKey,
    storeKey: `tally:${groupKey}`,
    value: { counters },
    ttlMs: ttlOfTally(counters, nowMs),
  });
  return {
    hold: (request) =>
      lock.run(lockKey, async () => {
        const keys = request.counters.map((counter) => counter.key);
        const { entries } = await readEntries(keys, { fillsCache: true });
        const states = entries.map((entry, index) => stateOf(keys[index] ?? '', entry, request.nowMs));
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
        const [{ tallies }, rankings] = await Promise.all([
          readEntries(
            request.counters.map((counter) => counter.key),
            { fillsCache: true },
          ),
          Promise.all(request.rankings.map((ranking) => readRanking(ranking.key, { fillsCache: true }))),
        ]);
        const nowMs = Date.now();
        const changed = new Map<string, Record<string, CounterEntry>>();
        for (const counter of request.counters) {
          const groupKey = tallyGroupOf(counter.key).key;
          const counters = changed.get(groupKey) ?? liveCounters(tallies.get(groupKey), nowMs);
          changed.set(groupKey, counters);
          const entry = counters[counter.key] ?? noEntry;
          const expiresAtMs = expiresAtOf(counter.ttlMs, nowMs);
          counters[counter.key] = {
            spent: addSpent(entry.spent, request.spent),
            toolCalls: addToolCalls(entry.toolCalls ?? {}, request.toolCalls ?? {}),
            ...(expiresAtMs === undefined ? {} : { expiresAtMs }),
          };
        }
        // One write for the whole reply: every tally it changed and every ranking it moves. It is
        // waited for, failed or not, before the lock is let go: a write still under way when the next
        // hold reads (and caches) the record could leave the cache behind the store.
        await writeAllThrough([
          ...[...changed].map(([groupKey, counters]) => tallyWrite(groupKey, counters, nowMs)),
          ...rankingWrites(request, rankings).map((write) => ({ cache: cachedRankings, ...write })),
        ]);
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
      const { entries } = await readEntries(keys, { fillsCache: false });
      return entries.map((entry, index) => stateOf(keys[index] ?? '', entry, nowMs));
    },
    async readToolCalls({ keys }) {
      return (await readEntries(keys, { fillsCache: false })).entries.map((entry) => entry.toolCalls ?? {});
    },
    forgetToolCalls: ({ keys }) =>
      lock.run(lockKey, async () => {
        const { tallies } = await readEntries(keys, { fillsCache: true });
        const nowMs = Date.now();
        const changed = new Map<string, Record<string, CounterEntry>>();
        for (const key of keys) {
          const groupKey = tallyGroupOf(key).key;
          const counters = changed.get(groupKey) ?? liveCounters(tallies.get(groupKey), nowMs);
          const entry = counters[key];
          if (entry?.toolCalls === undefined) continue;
          // The spending stays, until the counter's own end as its last settle set it.
          const { toolCalls: _forgotten, ...rest } = entry;
          counters[key] = rest;
          changed.set(groupKey, counters);
        }
        await writeAllThrough(
          [...changed].map(([groupKey, counters]) => tallyWrite(groupKey, counters, nowMs)),
        );
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
          await writeAllThrough([
            { cache: cachedRankings, key, storeKey: `ranking:${key}`, value: scores, ttlMs },
          ]);
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

/**
 * Which tally record a counter is kept in. The ledger's counter keys end in their period:
 * `<scope>:day:<YYYY-MM-DD>` or `<scope>:month:<YYYY-MM>` (usage-ledger.ts); both of a scope's month
 * go in `<scope>:month:<YYYY-MM>`, so a reply changes one record a scope. Any other key is a record
 * of its own (never the same as a dated one: a key of that shape is dated).
 */
export function tallyGroupOf(counterKey: string): { readonly key: string } {
  const match = datedCounterKey.exec(counterKey);
  if (match === null) return { key: counterKey };
  const [, scope, period, month, day] = match;
  if ((period === 'day') !== (day !== undefined)) return { key: counterKey };
  return { key: `${scope}:month:${month}` };
}

const datedCounterKey = /^(.+):(day|month):(\d{4}-\d{2})(-\d{2})?$/;

/** A counter of a tally as it stands at `nowMs`: nothing spent when absent or past its end. */
function liveEntry(tally: TallyRecord | undefined, key: string, nowMs: number): CounterEntry {
  const entry = tally?.counters[key];
  if (entry === undefined) return noEntry;
  return entry.expiresAtMs !== undefined && entry.expiresAtMs <= nowMs ? noEntry : entry;
}

/** A copy of a tally's counters without those past their end, to change and write back. */
function liveCounters(tally: TallyRecord | undefined, nowMs: number): Record<string, CounterEntry> {
  const counters: Record<string, CounterEntry> = {};
  for (const [key, entry] of Object.entries(tally?.counters ?? {})) {
    if (entry.expiresAtMs === undefined || entry.expiresAtMs > nowMs) counters[key] = entry;
  }
  return counters;
}

/** A tally is kept until the last of its counters ends; forever when one of them never does. */
function ttlOfTally(counters: Readonly<Record<string, CounterEntry>>, nowMs: number): number | undefined {
  let lastEndMs = nowMs + 1;
  for (const entry of Object.values(counters)) {
    if (entry.expiresAtMs === undefined) return undefined;
    lastEndMs = Math.max(lastEndMs, entry.expiresAtMs);
  }
  return lastEndMs - nowMs;
}

function addSpent(spent: SpentTotals, more: SpentTotals): SpentTotals {
  return {
    requests: spent.requests + more.requests,
    promptTokens: spent.promptTokens + more.promptTokens,
    completionTokens: spent.completionTokens + more.completionTokens,
    images: spent.images + more.images,
    costNanos: spent.costNanos + more.costNanos,
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
