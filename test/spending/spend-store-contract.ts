import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SpendBackend } from '../../src/spending/spend-backend.ts';
import type { HoldRequest, LimitedCounter, SpendAmount } from '../../src/spending/spend-store.ts';

/** One backing (a file, a Redis server) that several spend backends can be opened on at once. */
export interface SpendBacking {
  /** A backend on this backing; two open ones share their data, as two bot processes would. */
  open(options?: { userRequestsPerMinute?: number }): SpendBackend;
  dispose(): Promise<void>;
}

export interface SpendStoreContractOptions {
  readonly name: string;
  readonly isSkipped?: boolean;
  /** Whether what was written is there after every backend was closed and opened again. */
  readonly survivesRestart: boolean;
  /** Whether two backends opened on the backing count together (Redis: two processes). */
  readonly isShared: boolean;
  createBacking(): Promise<SpendBacking>;
}

const dayMs = 24 * 60 * 60_000;
const cents = (count: number) => count * 10_000_000;
const amount = (costNanos: number, extra: Partial<SpendAmount> = {}): SpendAmount => ({
  costNanos,
  tokens: 0,
  images: 0,
  ...extra,
});
const counter = (key: string, limits: LimitedCounter['limits'] = {}): LimitedCounter => ({
  key,
  ttlMs: dayMs,
  limits,
});
let reservationCount = 0;
const holdRequest = (
  request: Pick<HoldRequest, 'amount' | 'counters'> & Partial<HoldRequest>,
): HoldRequest => {
  reservationCount += 1;
  return {
    reservationId: `reservation-${reservationCount}`,
    nowMs: Date.now(),
    holdUntilMs: Date.now() + 60_000,
    ...request,
  };
};

/** What every SpendStore (with its sightings and request rate) must do, whatever holds its data. */
export function describeSpendStoreContract(options: SpendStoreContractOptions): void {
  describe.skipIf(options.isSkipped ?? false)(options.name, () => {
    let backing: SpendBacking;
    const opened: SpendBackend[] = [];
    const open = (openOptions?: { userRequestsPerMinute?: number }) => {
      const backend = backing.open(openOptions);
      opened.push(backend);
      return backend;
    };
    const closeAll = () => Promise.all(opened.splice(0).map((backend) => backend.close()));

    beforeEach(async () => {
      backing = await options.createBacking();
    });
    afterEach(async () => {
      await closeAll();
      await backing.dispose();
    });

    it('holds an amount that fits and says what each counter holds after it', async () => {
      const { store } = open();
      const outcome = await store.hold(
        holdRequest({
          amount: amount(cents(30), { tokens: 500 }),
          counters: [counter('user:a', { cost: cents(100) })],
        }),
      );
      expect(outcome).toEqual({
        isHeld: true,
        states: [
          {
            spent: { requests: 0, promptTokens: 0, completionTokens: 0, images: 0, costNanos: 0 },
            held: { costNanos: cents(30), tokens: 500, images: 0 },
          },
        ],
      });
    });

    it('refuses an amount that crosses any counter, names it, and holds nothing anywhere', async () => {
      const { store } = open();
      await store.hold(
        holdRequest({ amount: amount(cents(60)), counters: [counter('channel:c', { cost: cents(100) })] }),
      );
      const refused = await store.hold(
        holdRequest({
          amount: amount(cents(50)),
          counters: [counter('user:b', { cost: cents(1000) }), counter('channel:c', { cost: cents(100) })],
        }),
      );
      expect(refused).toMatchObject({ isHeld: false, counterIndex: 1, measure: 'cost' });
      if (!refused.isHeld) expect(refused.state.held.costNanos).toBe(cents(60));
      const [user] = await store.read({ keys: ['user:b'], nowMs: Date.now() });
      expect(user?.held.costNanos).toBe(0);
    });

    it('never refuses for a measure the request does not use', async () => {
      const { store } = open();
      const limits = { images: 2, cost: cents(100) };
      await store.hold(
        holdRequest({ amount: amount(cents(10), { images: 2 }), counters: [counter('user:d', limits)] }),
      );
      const chat = await store.hold(
        holdRequest({ amount: amount(cents(10)), counters: [counter('user:d', limits)] }),
      );
      expect(chat.isHeld).toBe(true);
      const image = await store.hold(
        holdRequest({ amount: amount(cents(10), { images: 1 }), counters: [counter('user:d', limits)] }),
      );
      expect(image).toMatchObject({ isHeld: false, measure: 'images' });
    });

    it('settles the real spending, drops the hold, and ranks the member by cost', async () => {
      const { store } = open();
      const hold = holdRequest({
        amount: amount(cents(40)),
        counters: [counter('user:e', { cost: cents(100) })],
      });
      await store.hold(hold);
      await store.settle({
        reservationId: hold.reservationId,
        heldCounters: [counter('user:e')],
        counters: [counter('user:e'), counter('conversation:x')],
        spent: { requests: 1, promptTokens: 120, completionTokens: 30, images: 0, costNanos: cents(3) },
        rankings: [{ key: 'top:day', ttlMs: dayMs, member: 'e' }],
      });
      await store.settle({
        reservationId: 'no-hold',
        heldCounters: [],
        counters: [counter('user:f')],
        spent: { requests: 1, promptTokens: 0, completionTokens: 0, images: 2, costNanos: cents(9) },
        rankings: [{ key: 'top:day', ttlMs: dayMs, member: 'f' }],
      });
      const [user, conversation] = await store.read({
        keys: ['user:e', 'conversation:x'],
        nowMs: Date.now(),
      });
      expect(user).toEqual({
        spent: { requests: 1, promptTokens: 120, completionTokens: 30, images: 0, costNanos: cents(3) },
        held: { costNanos: 0, tokens: 0, images: 0 },
      });
      expect(conversation?.spent.promptTokens).toBe(120);
      expect(await store.readRanking({ key: 'top:day', count: 5 })).toEqual([
        { member: 'f', costNanos: cents(9) },
        { member: 'e', costNanos: cents(3) },
      ]);
    });

    it('adds a ranking its own share when one is given (a model of a reply that called several)', async () => {
      const { store } = open();
      await store.settle({
        reservationId: 'two-models',
        heldCounters: [],
        counters: [counter('server:models')],
        spent: { requests: 2, promptTokens: 10, completionTokens: 10, images: 0, costNanos: cents(7) },
        rankings: [
          { key: 'models:day', ttlMs: dayMs, member: 'chat-model', costNanos: cents(5) },
          { key: 'models:day', ttlMs: dayMs, member: 'title-model', costNanos: cents(2) },
          { key: 'people:day', ttlMs: dayMs, member: 'g' },
        ],
      });
      expect(await store.readRanking({ key: 'models:day', count: 5 })).toEqual([
        { member: 'chat-model', costNanos: cents(5) },
        { member: 'title-model', costNanos: cents(2) },
      ]);
      expect(await store.readRanking({ key: 'people:day', count: 5 })).toEqual([
        { member: 'g', costNanos: cents(7) },
      ]);
    });

    it('counts tool calls by tool beside the spending, and keeps them through later holds', async () => {
      const { store } = open();
      const settle = (reservationId: string, toolCalls?: Record<string, { calls: number; errors: number }>) =>
        store.settle({
          reservationId,
          heldCounters: [counter('user:t')],
          counters: [counter('user:t'), counter('conversation:t')],
          spent: { requests: 1, promptTokens: 10, completionTokens: 5, images: 0, costNanos: cents(1) },
          ...(toolCalls === undefined ? {} : { toolCalls }),
          rankings: [],
        });
      // A counter written without tool calls (as before they were counted) reads as none.
      await settle('before-tools');
      expect(await store.readToolCalls({ keys: ['user:t', 'user:never'] })).toEqual([{}, {}]);
      await settle('first', { web_search: { calls: 2, errors: 1 } });
      const hold = holdRequest({
        amount: amount(cents(5)),
        counters: [counter('user:t', { cost: cents(100) })],
      });
      await store.hold(hold);
      await settle(hold.reservationId, {
        web_search: { calls: 1, errors: 0 },
        files_write_file: { calls: 1, errors: 0 },
      });
      const expected = {
        web_search: { calls: 3, errors: 1 },
        files_write_file: { calls: 1, errors: 0 },
      };
      expect(await store.readToolCalls({ keys: ['user:t', 'conversation:t'] })).toEqual([expected, expected]);
      const [user] = await store.read({ keys: ['user:t'], nowMs: Date.now() });
      expect(user?.spent).toEqual({
        requests: 3,
        promptTokens: 30,
        completionTokens: 15,
        images: 0,
        costNanos: cents(3),
      });

      // /forget takes them off the person's own counter; the spending and other counters keep theirs.
      await store.forgetToolCalls({ keys: ['user:t', 'user:never'] });
      expect(await store.readToolCalls({ keys: ['user:t', 'conversation:t'] })).toEqual([{}, expected]);
      const [after] = await store.read({ keys: ['user:t'], nowMs: Date.now() });
      expect(after?.spent).toEqual(user?.spent);
    });

    it('moves a forgotten member to `forgotten`, keeping the score, and leaves other rankings alone', async () => {
      const { store } = open();
      const settle = (member: string, costNanos: number, key = 'top:month') =>
        store.settle({
          reservationId: `settle-${member}-${key}`,
          heldCounters: [],
          counters: [counter(`user:${member}`)],
          spent: { requests: 1, promptTokens: 0, completionTokens: 0, images: 0, costNanos },
          rankings: [{ key, ttlMs: dayMs, member }],
        });
      await settle('g', cents(5));
      await settle('h', cents(7));
      await settle('h', cents(1), 'top:other');
      await store.renameRankingMember({ keys: ['top:month', 'top:none'], member: 'g', to: 'forgotten' });
      expect(await store.readRanking({ key: 'top:month', count: 5 })).toEqual([
        { member: 'h', costNanos: cents(7) },
        { member: 'forgotten', costNanos: cents(5) },
      ]);
      expect(await store.readRanking({ key: 'top:other', count: 5 })).toEqual([
        { member: 'h', costNanos: cents(1) },
      ]);
      expect(await store.readRanking({ key: 'top:none', count: 5 })).toEqual([]);
    });

    it('releases a hold, and forgets one that lapsed', async () => {
      const { store } = open();
      const limits = { cost: cents(100) };
      const released = holdRequest({ amount: amount(cents(90)), counters: [counter('user:g', limits)] });
      await store.hold(released);
      await store.release({ reservationId: released.reservationId, heldCounters: [counter('user:g')] });
      await store.hold(
        holdRequest({
          amount: amount(cents(90)),
          counters: [counter('user:g', limits)],
          holdUntilMs: Date.now() + 50,
        }),
      );
      await sleep(80);
      const again = await store.hold(
        holdRequest({ amount: amount(cents(90)), counters: [counter('user:g', limits)] }),
      );
      expect(again.isHeld).toBe(true);
    });

    it('lets exactly as many concurrent holds through as fit', async () => {
      const stores = options.isShared ? [open().store, open().store] : [open().store];
      const attempts = Array.from({ length: 12 }, (_, index) =>
        (stores[index % stores.length] ?? stores[0])?.hold(
          holdRequest({
            amount: amount(cents(16), { images: 4 }),
            counters: [counter('user:h', { cost: cents(50) }), counter('global', { cost: cents(10_000) })],
          }),
        ),
      );
      const outcomes = await Promise.all(attempts);
      expect(outcomes.filter((outcome) => outcome?.isHeld)).toHaveLength(3);
      const [user] = await (stores[0] ?? open().store).read({ keys: ['user:h'], nowMs: Date.now() });
      expect(user?.held.costNanos).toBe(cents(48));
    });

    it('tells a sighting first once within its time, then again after it', async () => {
      const first = open().sightings;
      const second = options.isShared ? open().sightings : first;
      expect(await first.isFirstSighting('blocked:u1', 100)).toBe(true);
      expect(await second.isFirstSighting('blocked:u1', 100)).toBe(false);
      expect(await first.isFirstSighting('blocked:u2', 100)).toBe(true);
      await sleep(150);
      expect(await second.isFirstSighting('blocked:u1', 100)).toBe(true);
    });

    it('lets a person make their requests a minute, then says how long to wait', async () => {
      const first = open({ userRequestsPerMinute: 2 }).requestRate;
      const second = options.isShared ? open({ userRequestsPerMinute: 2 }).requestRate : first;
      expect(await first?.take('u3')).toEqual({ isAllowed: true });
      expect(await second?.take('u3')).toEqual({ isAllowed: true });
      const third = await first?.take('u3');
      expect(third?.isAllowed).toBe(false);
      if (third && !third.isAllowed) expect(third.retryAfterMs).toBeGreaterThan(50_000);
      expect(await second?.take('u4')).toEqual({ isAllowed: true });
    });

    it.skipIf(!options.survivesRestart)('keeps spending and sightings across a restart', async () => {
      const before = open();
      await before.store.settle({
        reservationId: 'r',
        heldCounters: [],
        counters: [counter('user:i')],
        spent: { requests: 1, promptTokens: 5, completionTokens: 5, images: 0, costNanos: cents(7) },
        rankings: [],
      });
      await before.sightings.isFirstSighting('notice:i', 60_000);
      await closeAll();
      const after = open();
      const [user] = await after.store.read({ keys: ['user:i'], nowMs: Date.now() });
      expect(user?.spent.costNanos).toBe(cents(7));
      expect(await after.sightings.isFirstSighting('notice:i', 60_000)).toBe(false);
    });
  });
}
