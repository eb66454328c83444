import { Keyv } from 'keyv';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createKeyvSpendStore } from '../../src/spending/keyv-spend-store.ts';
import { createSpendRecordCache } from '../../src/spending/spend-record-cache.ts';
import type { SettleRequest, SpendStore } from '../../src/spending/spend-store.ts';
import { createInProcessLock } from '../../src/state/keyed-lock.ts';

const dayMs = 24 * 60 * 60_000;
const cents = (count: number) => count * 10_000_000;

/** A memory store that counts the records read from it and can be made to refuse writes. */
class CountingMap<Value> extends Map<string, Value> {
  reads = 0;
  isRefusingWrites = false;
  /** Writes that fail for the caller (a timeout) and land later, when the test lands them. */
  isLandingLate = false;
  readonly lateWrites: Array<() => void> = [];
  override get(key: string): Value | undefined {
    this.reads += 1;
    return super.get(key);
  }
  override set(key: string, value: Value): this {
    if (this.isRefusingWrites) throw new Error('the store refuses writes');
    if (this.isLandingLate) {
      this.lateWrites.push(() => super.set(key, value));
      throw new Error('the store timed out');
    }
    return super.set(key, value);
  }
}

function openStore(options: { cachedCounterLimit?: number; cachedRankingLimit?: number } = {}) {
  const map = new CountingMap<unknown>();
  const keyv = new Keyv({ store: map, throwOnErrors: true });
  const store = createKeyvSpendStore({ store: keyv, lock: createInProcessLock(), ...options });
  return { map, keyv, store };
}

let reservationCount = 0;
function settleRequest({
  keys,
  costCents = 1,
  ttlMs = dayMs,
  toolCalls,
  rankings = [],
}: {
  keys: readonly string[];
  costCents?: number;
  ttlMs?: number;
  toolCalls?: SettleRequest['toolCalls'];
  rankings?: SettleRequest['rankings'];
}): SettleRequest {
  reservationCount += 1;
  return {
    reservationId: `reservation-${reservationCount}`,
    heldCounters: [],
    counters: keys.map((key) => ({ key, ttlMs })),
    spent: { requests: 1, promptTokens: 10, completionTokens: 5, images: 0, costNanos: cents(costCents) },
    ...(toolCalls === undefined ? {} : { toolCalls }),
    rankings,
  };
}

async function spentCents(store: SpendStore, key: string): Promise<number> {
  const [state] = await store.read({ keys: [key], nowMs: Date.now() });
  return (state?.spent.costNanos ?? 0) / cents(1);
}

afterEach(() => {
  vi.useRealTimers();
});

describe('keyv spend store, records kept in the process', () => {
  it('reads a record it wrote without asking the store again', async () => {
    const { map, store } = openStore();
    await store.settle(settleRequest({ keys: ['user:a:day'] }));
    map.reads = 0;
    expect(await spentCents(store, 'user:a:day')).toBe(1);
    await store.settle(settleRequest({ keys: ['user:a:day'], costCents: 2 }));
    expect(await spentCents(store, 'user:a:day')).toBe(3);
    expect(map.reads).toBe(0);
  });

  it('lets a cached counter go at its TTL, as the stored one goes', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-04T12:00:00Z'));
    const { store } = openStore();
    const ttlMs = 60 * 60_000;
    await store.settle(settleRequest({ keys: ['user:a:day'], costCents: 5, ttlMs }));

    vi.setSystemTime(new Date('2026-11-04T12:59:59.990Z'));
    expect(await spentCents(store, 'user:a:day')).toBe(5);

    vi.setSystemTime(new Date('2026-11-04T13:00:00.001Z'));
    expect(await spentCents(store, 'user:a:day')).toBe(0);
    // A hold reads through the same cache: the spending of the lapsed period no longer counts.
    const outcome = await store.hold({
      reservationId: 'after-expiry',
      amount: { costNanos: cents(6), tokens: 0, images: 0 },
      counters: [{ key: 'user:a:day', ttlMs, limits: { cost: cents(10) } }],
      nowMs: Date.now(),
      holdUntilMs: Date.now() + 60_000,
    });
    expect(outcome.isHeld).toBe(true);
  });

  it('lets a cached ranking go at its TTL', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-04T12:00:00Z'));
    const { store } = openStore();
    await store.settle(
      settleRequest({ keys: [], rankings: [{ key: 'users:w:day', ttlMs: 60_000, member: 'a' }] }),
    );
    expect(await store.readRanking({ key: 'users:w:day', count: 5 })).toEqual([
      { member: 'a', costNanos: cents(1) },
    ]);
    vi.setSystemTime(new Date('2026-11-04T12:01:00.001Z'));
    expect(await store.readRanking({ key: 'users:w:day', count: 5 })).toEqual([]);
  });

  it('keeps at most its bound of records, reading an evicted one from the store again', async () => {
    const { map, store } = openStore({ cachedCounterLimit: 2 });
    await store.settle(settleRequest({ keys: ['first'], costCents: 1 }));
    await store.settle(settleRequest({ keys: ['second'], costCents: 2 }));
    map.reads = 0;
    expect(await spentCents(store, 'first')).toBe(1);
    expect(await spentCents(store, 'second')).toBe(2);
    expect(map.reads).toBe(0);

    // A third record pushes out the least recently used one, `first`.
    await store.settle(settleRequest({ keys: ['third'], costCents: 3 }));
    map.reads = 0;
    expect(await spentCents(store, 'second')).toBe(2);
    expect(await spentCents(store, 'third')).toBe(3);
    expect(map.reads).toBe(0);
    expect(await spentCents(store, 'first')).toBe(1);
    expect(map.reads).toBe(1);
  });

  it('shows /forget through later reads and settles', async () => {
    const { store } = openStore();
    const toolCalls = { search: { calls: 2, errors: 1 } };
    const rankings = [{ key: 'users:w:day', ttlMs: dayMs, member: 'a' }];
    await store.settle(settleRequest({ keys: ['user:a:day'], costCents: 4, toolCalls, rankings }));
    expect(await store.readToolCalls({ keys: ['user:a:day'] })).toEqual([toolCalls]);

    await store.forgetToolCalls({ keys: ['user:a:day'] });
    await store.renameRankingMember({ keys: ['users:w:day'], member: 'a', to: 'forgotten' });
    expect(await store.readToolCalls({ keys: ['user:a:day'] })).toEqual([{}]);
    expect(await spentCents(store, 'user:a:day')).toBe(4);
    expect(await store.readRanking({ key: 'users:w:day', count: 5 })).toEqual([
      { member: 'forgotten', costNanos: cents(4) },
    ]);

    // The next settle builds on the forgotten records, not on a copy from before /forget.
    await store.settle(
      settleRequest({
        keys: ['user:a:day'],
        costCents: 1,
        toolCalls: { fetch: { calls: 1, errors: 0 } },
        rankings: [{ key: 'users:w:day', ttlMs: dayMs, member: 'b' }],
      }),
    );
    expect(await store.readToolCalls({ keys: ['user:a:day'] })).toEqual([{ fetch: { calls: 1, errors: 0 } }]);
    expect(await store.readRanking({ key: 'users:w:day', count: 5 })).toEqual([
      { member: 'forgotten', costNanos: cents(4) },
      { member: 'b', costNanos: cents(1) },
    ]);
  });

  it('keeps a forgotten counter only until its own end', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-04T12:00:00Z'));
    const { store } = openStore();
    await store.settle(
      settleRequest({ keys: ['user:a:day'], ttlMs: 60_000, toolCalls: { search: { calls: 1, errors: 0 } } }),
    );
    vi.setSystemTime(new Date('2026-11-04T12:00:30Z'));
    await store.forgetToolCalls({ keys: ['user:a:day'] });
    expect(await spentCents(store, 'user:a:day')).toBe(1);
    vi.setSystemTime(new Date('2026-11-04T12:01:00.001Z'));
    expect(await spentCents(store, 'user:a:day')).toBe(0);
  });

  it('reads after a restart what the process before it wrote', async () => {
    const { keyv, store: before } = openStore();
    const rankings = [{ key: 'users:w:day', ttlMs: dayMs, member: 'a' }];
    await before.settle(settleRequest({ keys: ['user:a:day'], costCents: 7, rankings }));

    const after = createKeyvSpendStore({ store: keyv, lock: createInProcessLock() });
    expect(await spentCents(after, 'user:a:day')).toBe(7);
    expect(await after.readRanking({ key: 'users:w:day', count: 5 })).toEqual([
      { member: 'a', costNanos: cents(7) },
    ]);
    await after.settle(settleRequest({ keys: ['user:a:day'], costCents: 1, rankings }));
    expect(await spentCents(after, 'user:a:day')).toBe(8);
    expect(await after.readRanking({ key: 'users:w:day', count: 5 })).toEqual([
      { member: 'a', costNanos: cents(8) },
    ]);
  });

  it('does not count a settle whose write failed', async () => {
    const { map, store } = openStore();
    await store.settle(settleRequest({ keys: ['user:a:day'], costCents: 1 }));
    map.isRefusingWrites = true;
    await expect(store.settle(settleRequest({ keys: ['user:a:day'], costCents: 2 }))).rejects.toThrow(
      'the store refuses writes',
    );
    map.isRefusingWrites = false;
    expect(await spentCents(store, 'user:a:day')).toBe(1);
    await store.settle(settleRequest({ keys: ['user:a:day'], costCents: 4 }));
    expect(await spentCents(store, 'user:a:day')).toBe(5);
  });

  it('reads a write that failed for it but landed later, rather than writing over it from an older kept value', async () => {
    const { map, store } = openStore();
    await store.settle(settleRequest({ keys: ['user:a:day'], costCents: 1 }));
    map.isLandingLate = true;
    await expect(store.settle(settleRequest({ keys: ['user:a:day'], costCents: 2 }))).rejects.toThrow(
      'the store timed out',
    );
    map.isLandingLate = false;
    // The next request's hold reads the record before the late write lands...
    const held = await store.hold({
      reservationId: 'after-the-timeout',
      counters: [{ key: 'user:a:day', ttlMs: dayMs, limits: {} }],
      amount: { costNanos: 0, tokens: 0, images: 0 },
      holdUntilMs: Date.now() + 60_000,
      nowMs: Date.now(),
    });
    expect(held.isHeld).toBe(true);
    // ...which then lands: what it spent is in the store, and the next settle must build on it.
    for (const land of map.lateWrites.splice(0)) land();
    await store.settle(settleRequest({ keys: ['user:a:day'], costCents: 4 }));
    expect(await spentCents(store, 'user:a:day')).toBe(7);
  });
});

describe('spend record cache', () => {
  it('stays within its bound however many records pass through', () => {
    const cache = createSpendRecordCache<number>({ maxRecords: 100 });
    for (let index = 0; index < 10_000; index += 1) cache.set(`record-${index}`, index, undefined);
    expect(cache.size).toBe(100);
    expect(cache.get('record-9999', 0)).toBe(9999);
    expect(cache.get('record-9899', 0)).toBe(undefined);
  });

  it('gives nothing from the moment a record expires', () => {
    const cache = createSpendRecordCache<string>({ maxRecords: 10 });
    cache.set('counter', 'spent', 1_000);
    expect(cache.get('counter', 999)).toBe('spent');
    expect(cache.get('counter', 1_000)).toBe(undefined);
    expect(cache.size).toBe(0);
  });
});

describe('keyv spend store, one record a scope and month', () => {
  const spent = (costCents: number) => ({
    requests: 1,
    promptTokens: 10,
    completionTokens: 5,
    images: 0,
    costNanos: cents(costCents),
  });

  it('moves what an earlier version kept a record a counter into the tallies, once, and keeps counting on it', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-04T12:00:00Z'));
    const { map, keyv } = openStore();
    // As the version before wrote them: one record per counter, with the period's TTL.
    await keyv.set('counter:user:a:day:2026-11-04', { spent: spent(3) }, 40 * dayMs);
    await keyv.set('counter:user:a:day:2026-11-02', { spent: spent(2) }, 40 * dayMs);
    await keyv.set(
      'counter:user:a:month:2026-11',
      { spent: spent(5), toolCalls: { search: { calls: 1, errors: 0 } } },
      400 * dayMs,
    );
    await keyv.set('counter:user:a:month:2026-10', { spent: spent(9) }, 400 * dayMs);
    await keyv.set('ranking:top-users:s:month:2026-11', { a: cents(5) }, 400 * dayMs);
    const store = createKeyvSpendStore({ store: keyv, lock: createInProcessLock() });
    expect(await spentCents(store, 'user:a:month:2026-11')).toBe(5);
    expect(await spentCents(store, 'user:a:month:2026-10')).toBe(9);
    // The old records are gone, their counters in the tallies; the rankings' layout is unchanged.
    const storedKeys = [...map.keys()];
    expect(storedKeys.filter((key) => key.includes('counter:'))).toEqual([]);
    expect(storedKeys.filter((key) => key.includes('tally:')).length).toBe(2);
    expect(await store.readRanking({ key: 'top-users:s:month:2026-11', count: 5 })).toEqual([
      { member: 'a', costNanos: cents(5) },
    ]);

    // A budget of 0.06 a month: the upgrade must not have forgotten the 0.05 already spent.
    const refused = await store.hold({
      reservationId: 'over-the-month',
      amount: { costNanos: cents(2), tokens: 0, images: 0 },
      counters: [{ key: 'user:a:month:2026-11', ttlMs: 400 * dayMs, limits: { cost: cents(6) } }],
      nowMs: Date.now(),
      holdUntilMs: Date.now() + 60_000,
    });
    expect(refused.isHeld).toBe(false);

    await store.settle({
      reservationId: 'after-upgrade',
      heldCounters: [],
      counters: [
        { key: 'user:a:day:2026-11-04', ttlMs: 40 * dayMs },
        { key: 'user:a:month:2026-11', ttlMs: 400 * dayMs },
      ],
      spent: spent(1),
      toolCalls: { search: { calls: 1, errors: 1 } },
      rankings: [],
    });
    const stored = (await keyv.get('tally:user:a:month:2026-11')) as { counters: Record<string, unknown> };
    expect(Object.keys(stored.counters).sort()).toEqual([
      'user:a:day:2026-11-02',
      'user:a:day:2026-11-04',
      'user:a:month:2026-11',
    ]);

    // A new process finds the migration done: it reads the tallies, and counts nothing twice.
    const getRaw = vi.spyOn(keyv, 'getManyRaw');
    const after = createKeyvSpendStore({ store: keyv, lock: createInProcessLock() });
    expect(await spentCents(after, 'user:a:day:2026-11-04')).toBe(4);
    expect(await spentCents(after, 'user:a:day:2026-11-02')).toBe(2);
    expect(await spentCents(after, 'user:a:month:2026-11')).toBe(6);
    expect(await after.readToolCalls({ keys: ['user:a:month:2026-11'] })).toEqual([
      { search: { calls: 2, errors: 1 } },
    ]);
    expect(getRaw.mock.calls.flatMap(([keys]) => keys).every((key) => key.startsWith('tally:'))).toBe(true);
  });

  it('counts nothing twice when a migration cut short runs again', async () => {
    const { keyv } = openStore();
    await keyv.set('counter:user:a:month:2026-11', { spent: spent(5) }, 400 * dayMs);
    // The tally was written but the process died before the old record was removed.
    await keyv.set(
      'tally:user:a:month:2026-11',
      { counters: { 'user:a:month:2026-11': { spent: spent(5) } } },
      400 * dayMs,
    );
    const store = createKeyvSpendStore({ store: keyv, lock: createInProcessLock() });
    expect(await spentCents(store, 'user:a:month:2026-11')).toBe(5);
  });

  it("writes a reply's counters and rankings in one store call, and keeps each counter's own end", async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-04T12:00:00Z'));
    const { keyv, store } = openStore();
    const setMany = vi.spyOn(keyv, 'setMany');
    const scopes = ['user:a', 'conversation:c', 'channel:h', 'server:s', 'global'];
    await store.settle({
      reservationId: 'one-write',
      heldCounters: [],
      counters: scopes.flatMap((scope) => [
        { key: `${scope}:day:2026-11-04`, ttlMs: 40 * dayMs },
        { key: `${scope}:month:2026-11`, ttlMs: 400 * dayMs },
      ]),
      spent: spent(1),
      rankings: [
        { key: 'top-users:s:day:2026-11-04', ttlMs: 40 * dayMs, member: 'a' },
        { key: 'top-users:s:month:2026-11', ttlMs: 400 * dayMs, member: 'a' },
      ],
    });
    expect(setMany).toHaveBeenCalledTimes(1);
    expect(setMany.mock.calls[0]?.[0].map((entry) => entry.key).sort()).toEqual(
      [
        'ranking:top-users:s:day:2026-11-04',
        'ranking:top-users:s:month:2026-11',
        ...scopes.map((scope) => `tally:${scope}:month:2026-11`),
      ].sort(),
    );

    // The day's counter ends 40 days after its last change, the month's 400 days after.
    vi.setSystemTime(new Date(Date.parse('2026-11-04T12:00:00Z') + 41 * dayMs));
    expect(await spentCents(store, 'user:a:day:2026-11-04')).toBe(0);
    expect(await spentCents(store, 'user:a:month:2026-11')).toBe(1);
  });
});
