import { Keyv } from 'keyv';
import { describe, expect, it } from 'vitest';
import type { StoredTurn } from '../../src/conversation/turn.ts';
import { createPeopleIndex } from '../../src/retention/people-index.ts';
import { createInProcessLock } from '../../src/state/keyed-lock.ts';

const turnBy = (authorId: string): StoredTurn => ({
  role: 'user',
  authorId,
  authorName: authorId,
  text: 'hello',
  images: [],
  createdAt: new Date('2026-11-27T12:00:00Z').toISOString(),
});

describe('people index', () => {
  it('keeps every conversation of a record that holds one unreadable time, so /forget still finds them', async () => {
    const store = new Keyv();
    // Written by an older version, or damaged: one time is not an ISO time.
    await store.set('person:discord:alice', {
      conversations: {
        'discord:guild:general': '2026-11-20T10:00:00.000Z',
        'discord:guild:random': 'last tuesday',
      },
    });
    const index = createPeopleIndex({ store, lock: createInProcessLock() });
    await index.noteTurns('discord:guild:help', [turnBy('alice')]);
    expect((await index.conversationsOf({ platform: 'discord', userId: 'alice' })).sort()).toEqual([
      'discord:guild:general',
      'discord:guild:help',
      'discord:guild:random',
    ]);
  });

  it('never sweeps an entry whose time it cannot read', async () => {
    const store = new Keyv();
    await store.set('person:discord:alice', {
      conversations: { 'discord:guild:old': '2020-01-01T00:00:00.000Z', 'discord:guild:odd': 'not a time' },
    });
    const index = createPeopleIndex({ store, lock: createInProcessLock() });
    const nowMs = Date.now();
    const sweep = index.keptData.sweep;
    if (sweep === undefined) throw new Error('the people index has no sweep');
    const removed = await sweep({ nowMs, sharedCutoffMs: nowMs, cutoffMsFor: async () => nowMs });
    expect(removed).toBe(1);
    expect(await index.conversationsOf({ platform: 'discord', userId: 'alice' })).toEqual([
      'discord:guild:odd',
    ]);
  });
});
