import type { Keyv } from 'keyv';
import { z } from 'zod';
import type { KeyedLock } from '../state/keyed-lock.ts';
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
type CounterRecord = z.infer<typeof counterRecordSchema>;
const rankingSchema = z.record(z.string(), z.number());
type Hold = SpendAmount & { readonly untilMs: number };

/** Every change runs under this one key: a hold reads and writes several counters as one step. */
const lockKey = 'spend';

/**
 * A SpendStore on a keyv store (memory or SQLite) for one bot process: each counter's spending is
 * one record, and every change runs under one in-process lock, so a check and its hold cannot
 * interleave with another request's. The holds of requests in flight live in the process, not in
 * the records: only this process makes them, they end with it, and writing them made every hold
 * and settle read and rewrite a record that grew with the replies in flight (200 replies at once:
 * 200 holds in the workspace's record, rewritten 400 times; docs/benchmarks.md, issue 24). Several
 * processes must share a Redis instead (redis-spend-store.ts).
 */
export function createKeyvSpendStore({ store, lock }: { store: Keyv; lock: KeyedLock }): SpendStore {
  const holdsByCounter = new Map<string, Map<string, Hold>>();
  const readRecords = async (keys: readonly string[]): Promise<CounterRecord[]> => {
    const values = keys.length === 0 ? [] : await store.getMany(keys.map((key) => `counter:${key}`));
    return values.map((value) => {
      const parsed = counterRecordSchema.safeParse(value);
      return parsed.success ? parsed.data : { spent: { ...noSpending } };
    });
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
        const records = await readRecords(keys);
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
        const records = await readRecords(request.counters.map((counter) => counter.key));
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
          return store.set(`counter:${counter.key}`, { spent, toolCalls }, counter.ttlMs);
        });
        await Promise.all([
          ...writes,
          ...request.rankings.map(async (ranking) => {
            const parsed = rankingSchema.safeParse(await store.get(`ranking:${ranking.key}`));
            const scores = parsed.success ? parsed.data : {};
            scores[ranking.member] = (scores[ranking.member] ?? 0) + request.spent.costNanos;
            await store.set(`ranking:${ranking.key}`, scores, ranking.ttlMs);
          }),
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
      const records = await readRecords(keys);
      return records.map((record, index) => stateOf(keys[index] ?? '', record, nowMs));
    },
    async readToolCalls({ keys }) {
      return (await readRecords(keys)).map((record) => record.toolCalls ?? {});
    },
    forgetToolCalls: ({ keys }) =>
      lock.run(lockKey, async () => {
        for (const key of keys) {
          const raw = await store.getRaw(`counter:${key}`);
          const parsed = counterRecordSchema.safeParse(raw?.value);
          if (!parsed.success || parsed.data.toolCalls === undefined) continue;
          const { toolCalls: _forgotten, ...rest } = parsed.data;
          // Kept until the counter's own end, as its last settle set it.
          const ttlMs = typeof raw?.expires === 'number' ? Math.max(1, raw.expires - Date.now()) : undefined;
          await store.set(`counter:${key}`, rest, ttlMs);
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
          await store.set(`ranking:${key}`, scores, ttlMs);
        }
      }),
    async readRanking({ key, count }) {
      const parsed = rankingSchema.safeParse(await store.get(`ranking:${key}`));
      return Object.entries(parsed.success ? parsed.data : {})
        .map(([member, costNanos]) => ({ member, costNanos }))
        .sort((first, second) => second.costNanos - first.costNanos)
        .slice(0, count);
    },
  };
}

function addAmounts(first: SpendAmount, second: SpendAmount): SpendAmount {
  return {
    costNanos: first.costNanos + second.costNanos,
    tokens: first.tokens + second.tokens,
    images: first.images + second.images,
  };
}
