import Keyv from 'keyv';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { NewAuditEntry } from '../../src/audit/audit-entry.ts';
import { createAuditLog } from '../../src/audit/audit-log.ts';
import { createInProcessLock } from '../../src/state/keyed-lock.ts';

const dayMs = 24 * 60 * 60_000;
const start = Date.parse('2026-12-01T10:00:00Z');

function auditLogAt(clock: { nowMs: number }, minimumRetentionDays?: number) {
  return createAuditLog({
    store: new Keyv(),
    lock: createInProcessLock(),
    logger: pino({ level: 'silent' }),
    now: () => clock.nowMs,
    minimumRetentionDays,
  });
}

const entry = (overrides: Partial<NewAuditEntry> = {}): NewAuditEntry => ({
  platform: 'discord',
  workspace: 'G1',
  channel: 'C1',
  actor: { id: 'U1', name: 'ada' },
  kind: 'config-change',
  what: 'MEMORY for this server is now place.',
  result: 'done',
  ...overrides,
});

describe('the audit trail', () => {
  it('reads one place newest first, in pages, filtered by person, kind and time', async () => {
    const clock = { nowMs: start };
    const audit = auditLogAt(clock);
    for (let index = 0; index < 25; index += 1) {
      clock.nowMs = start + index * 3 * 60 * 60_000; // every 3 hours: 25 entries over 4 days
      await audit.record(entry({ what: `change ${index}` }));
    }
    await audit.record(entry({ workspace: 'G2', what: 'another server' }));
    await audit.record(
      entry({ kind: 'tool-call', actor: { id: 'U2', name: 'bo' }, onBehalfOf: { id: 'U1', name: 'ada' } }),
    );
    const query = { platform: 'discord', workspace: 'G1', limit: 10 };
    const first = await audit.read(query);
    expect(first.entries[0]?.kind).toBe('tool-call');
    expect(first.entries.slice(1).map((found) => found.what)).toEqual(
      Array.from({ length: 9 }, (_, index) => `change ${24 - index}`),
    );
    const second = await audit.read({ ...query, cursor: first.nextCursor });
    const third = await audit.read({ ...query, cursor: second.nextCursor });
    const all = [...first.entries, ...second.entries, ...third.entries];
    expect(all).toHaveLength(26);
    expect(new Set(all.map((found) => found.id)).size).toBe(26);
    expect(third.nextCursor).toBeUndefined();
    expect(all.some((found) => found.what === 'another server')).toBe(false);

    const onBehalf = await audit.read({ ...query, personId: 'U1', kind: 'tool-call' });
    expect(onBehalf.entries.map((found) => found.actor.name)).toEqual(['bo']);
    const lastDay = await audit.read({ ...query, limit: 100, sinceMs: clock.nowMs - dayMs });
    expect(lastDay.entries.every((found) => found.atMs >= clock.nowMs - dayMs)).toBe(true);
    expect(lastDay.entries.length).toBeGreaterThan(0);
    expect(lastDay.entries.length).toBeLessThan(26);
  });

  it('keeps no credential someone typed, and never more than a line', async () => {
    const audit = auditLogAt({ nowMs: start });
    await audit.record(
      entry({ what: `SYSTEM_PROMPT is now "use key sk-${'a'.repeat(40)}" ${'x'.repeat(600)}` }),
    );
    const [kept] = (await audit.read({ platform: 'discord', workspace: 'G1', limit: 5 })).entries;
    expect(kept?.what).not.toContain('sk-aaaa');
    expect(kept?.what.length).toBeLessThanOrEqual(300);
  });

  it('is swept with the place’s history, or kept longer with AUDIT_RETENTION_DAYS', async () => {
    for (const [minimumDays, expected] of [
      [undefined, ['new']],
      [60, ['new', 'old']],
    ] as const) {
      const clock = { nowMs: start };
      const audit = auditLogAt(clock, minimumDays);
      await audit.record(entry({ what: 'old' }));
      clock.nowMs = start + 40 * dayMs;
      await audit.record(entry({ what: 'new' }));
      const removed = await audit.keptData.sweep?.({
        nowMs: clock.nowMs,
        sharedCutoffMs: clock.nowMs - 30 * dayMs,
        cutoffMsFor: async () => clock.nowMs - 30 * dayMs,
      });
      expect(removed).toBe(expected.length === 1 ? 1 : 0);
      const kept = await audit.read({ platform: 'discord', workspace: 'G1', limit: 5 });
      expect(kept.entries.map((found) => found.what)).toEqual(expected);
    }
  });

  it('gives a person their own entries for /export and takes their name off for /forget', async () => {
    const audit = auditLogAt({ nowMs: start });
    await audit.record(entry({ kind: 'export', what: '/export of their own data' }));
    await audit.record(entry({ actor: { id: 'U9', name: 'grace' }, what: 'someone else' }));
    await audit.record(entry({ workspace: 'G2', kind: 'forget', what: 'elsewhere' }));
    const request = { person: { platform: 'discord', userId: 'U1' }, conversationKeys: [], nowMs: start };
    const exported = (await audit.keptData.export?.({ ...request, workspace: undefined })) as {
      what: string;
    }[];
    expect(exported.map((found) => found.what).sort()).toEqual(['/export of their own data', 'elsewhere']);
    const renamed = await audit.keptData.forget?.({ ...request, workspace: 'G1', forgottenTurns: [] });
    expect(renamed).toBe(1);
    const entries = (await audit.read({ platform: 'discord', workspace: 'G1', limit: 5 })).entries;
    expect(entries.map((found) => found.actor.name).sort()).toEqual(['forgotten person', 'grace']);
    const elsewhere = (await audit.read({ platform: 'discord', workspace: 'G2', limit: 5 })).entries;
    expect(elsewhere[0]?.actor.name).toBe('ada');
  });

  it('keeps room for the rare deeds once the frequent ones fill a day, and counts what it could not keep', async () => {
    const audit = auditLogAt({ nowMs: start });
    for (let index = 0; index < 4_010; index += 1) {
      await audit.record(entry({ kind: 'tool-call', what: `web_search (built-in) ${index}` }));
    }
    await audit.record(entry({ what: 'MEMORY for this server is now off.' }));
    const query = { platform: 'discord', workspace: 'G1', limit: 3 };
    const newest = await audit.read(query);
    expect(newest.entries.map((found) => found.what)).toEqual([
      'MEMORY for this server is now off.',
      'web_search (built-in) 3999',
      'web_search (built-in) 3998',
    ]);
    expect(newest.overflowed).toBe(10);
    // Read across the pages the day is kept in, none missed or repeated.
    const all = await audit.read({ ...query, limit: 5_000 });
    expect(all.entries).toHaveLength(4_001);
    expect(new Set(all.entries.map((found) => found.id)).size).toBe(4_001);
    expect(all.entries.at(-1)?.what).toBe('web_search (built-in) 0');
  });
});
