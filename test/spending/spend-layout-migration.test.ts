import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { openSpendBackend } from '../../src/spending/spend-backend.ts';
import { openStore } from '../../src/state/create-store.ts';

/**
 * An upgrade from the layout of one record a counter (`counter:<key>`) to one record a scope and
 * month (`tally:`, issue 39), on the stores that outlive a process: what was spent this month still
 * counts, once, and the old records are gone.
 */
const logger = pino({ level: 'silent' });
const dayMs = 24 * 60 * 60_000;
const postgresUrl = process.env.DATABASE_URL;
const spent = (costNanos: number) => ({
  requests: 1,
  promptTokens: 10,
  completionTokens: 5,
  images: 0,
  costNanos,
});

async function checkUpgrade(storeUrl: string): Promise<void> {
  const namespace = `spend-upgrade-${randomUUID()}`;
  const store = openStore({ storeUrl, logger });
  try {
    const keyv = store.namespace(namespace);
    const month = new Date().toISOString().slice(0, 7);
    const day = new Date().toISOString().slice(0, 10);
    await keyv.set(`counter:user:u1:month:${month}`, { spent: spent(5_000) }, 400 * dayMs);
    await keyv.set(`counter:user:u1:day:${day}`, { spent: spent(2_000) }, 40 * dayMs);
    await keyv.set(`counter:global:month:${month}`, { spent: spent(7_000) }, 400 * dayMs);

    const backend = openSpendBackend({ store, namespace, userRequestsPerMinute: undefined });
    const keys = [`user:u1:month:${month}`, `user:u1:day:${day}`, `global:month:${month}`];
    const before = await backend.store.read({ keys, nowMs: Date.now() });
    expect(before.map((state) => state.spent.costNanos)).toEqual([5_000, 2_000, 7_000]);
    expect(await keyv.get(`counter:user:u1:month:${month}`)).toBeUndefined();

    await backend.store.settle({
      reservationId: 'after-the-upgrade',
      heldCounters: [],
      counters: keys.map((key) => ({ key, ttlMs: key.includes(':day:') ? 40 * dayMs : 400 * dayMs })),
      spent: spent(1_000),
      rankings: [],
    });
    // Another process on the same store after the upgrade: the tallies alone, nothing counted twice.
    const again = openSpendBackend({ store, namespace, userRequestsPerMinute: undefined });
    const after = await again.store.read({ keys, nowMs: Date.now() });
    expect(after.map((state) => state.spent.costNanos)).toEqual([6_000, 3_000, 8_000]);
    await keyv.clear();
  } finally {
    await store.close();
  }
}

describe('spend records after an upgrade to one record a scope and month', () => {
  it('on sqlite://', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'parley-spend-upgrade-'));
    try {
      await checkUpgrade(`sqlite://${join(directory, 'parley.sqlite')}`);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it.skipIf(postgresUrl === undefined)('on postgres:// (DATABASE_URL)', async () => {
    await checkUpgrade(postgresUrl ?? '');
  });
});
