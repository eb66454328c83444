import { Keyv } from 'keyv';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createReplyJournal, type JournalEntry } from '../../src/conversation/reply-journal.ts';

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});
afterEach(() => {
  vi.useRealTimers();
});

/** A journal on an in-memory Keyv that counts the writes of records. */
function journalWithWrites() {
  const store = new Keyv();
  const writes: JournalEntry[] = [];
  const set = store.set.bind(store);
  store.set = ((key: string, value: JournalEntry, ttl?: number) => {
    writes.push(value);
    return set(key, value, ttl);
  }) as typeof store.set;
  const journal = createReplyJournal({
    store,
    isStoreShared: false,
    logger: pino({ level: 'silent' }),
    progressWriteIntervalMs: 2_000,
  });
  const record = journal.begin({
    address: { platform: 'test', channel: 'c1' },
    conversationKey: 'test:w:c1',
    turn: { authorId: 'u1', authorName: 'Ada', text: 'count' },
  });
  return { journal, record, writes };
}

describe('the reply journal writes', () => {
  it('a record at once when its first message exists, then at most every 2 s with the latest texts', async () => {
    const { journal, record, writes } = journalWithWrites();
    record.update({ messages: [], modelText: 'one' });
    expect(writes).toHaveLength(0);
    record.update({ messages: [{ id: 'm1', text: 'one' }], modelText: 'one' });
    expect(writes.map((entry) => entry.messages)).toEqual([[{ id: 'm1', text: 'one' }]]);
    for (const [index, text] of ['one two', 'one two three', 'one two three four'].entries()) {
      await vi.advanceTimersByTimeAsync(500);
      record.update({ messages: [{ id: 'm1', text }], modelText: `${text} five`.slice(0, 30 + index) });
    }
    expect(writes).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(500);
    expect(writes).toHaveLength(2);
    expect(writes[1]?.messages).toEqual([{ id: 'm1', text: 'one two three four' }]);
    journal.close();
  });

  it('a record at once when the reply moves on to a new message', async () => {
    const { journal, record, writes } = journalWithWrites();
    record.update({ messages: [{ id: 'm1', text: 'first' }], modelText: 'first' });
    await vi.advanceTimersByTimeAsync(100);
    record.update({
      messages: [
        { id: 'm1', text: 'first' },
        { id: 'm2', text: 'second' },
      ],
      modelText: 'first second',
    });
    expect(writes.map((entry) => entry.messages.map((message) => message.id))).toEqual([
      ['m1'],
      ['m1', 'm2'],
    ]);
    journal.close();
  });

  it('nothing more once the reply has ended, and removes its record', async () => {
    const { journal, record, writes } = journalWithWrites();
    record.update({ messages: [{ id: 'm1', text: 'one' }], modelText: 'one' });
    await vi.advanceTimersByTimeAsync(100);
    record.update({ messages: [{ id: 'm1', text: 'one two' }], modelText: 'one two' });
    await record.end();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(writes).toHaveLength(1);
    expect(await journal.listOrphans('test')).toEqual([]);
    journal.close();
  });

  it('a heartbeat only for a record not written since the last beat', async () => {
    const { journal, record, writes } = journalWithWrites();
    record.update({ messages: [{ id: 'm1', text: 'one' }], modelText: 'one' });
    await vi.advanceTimersByTimeAsync(4_500);
    record.update({ messages: [{ id: 'm1', text: 'one two' }], modelText: 'one two' });
    expect(writes).toHaveLength(2);
    // The beat at 5 s finds the record written at 4.5 s; the one at 10 s renews it.
    await vi.advanceTimersByTimeAsync(500);
    expect(writes).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(writes).toHaveLength(3);
    expect(writes[2]?.heartbeatAt).toBe(new Date(10_000).toISOString());
    expect(writes[2]?.messages).toEqual([{ id: 'm1', text: 'one two' }]);
    await record.end();
    journal.close();
  });
});
