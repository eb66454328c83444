import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keyv } from 'keyv';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startDiscordUnderTest } from '../support/discord-under-test.ts';

/**
 * A reply writes to the store at most 8 times once its conversation is under way (issue 39; it made
 * 23 writes, 14 of them spend counters). A write is one store call that changes data: keyv's `set`,
 * `delete`, `deleteMany`, `clear`, and a `setMany` the adapter makes in one go (SQLite: one
 * transaction; Postgres: one statement), counted once; where keyv splits a `setMany` into `set`s,
 * each `set` counts. On SQLite, the default store. Redis runs the spend store's settle as one script
 * (one round trip), outside keyv; this test counts on the keyv stores.
 */
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const close of closers.splice(0)) await close();
});

const maxWritesPerReply = 8;

/** Counts every write made through any keyv store, with what it wrote, from the moment it is called. */
function countWrites(): () => string[] {
  const writes: string[] = [];
  const record = (operation: string, namespace: string | undefined, key: unknown) =>
    writes.push(`${operation} ${namespace ?? ''} ${Array.isArray(key) ? key.length : String(key)}`);
  for (const operation of ['set', 'delete', 'deleteMany', 'clear'] as const) {
    const original = Keyv.prototype[operation] as (...parameters: unknown[]) => Promise<unknown>;
    vi.spyOn(Keyv.prototype, operation).mockImplementation(function (this: Keyv, ...parameters: unknown[]) {
      record(operation, this.namespace, parameters[0]);
      return original.apply(this, parameters);
    } as never);
  }
  const originalSetMany = Keyv.prototype.setMany;
  vi.spyOn(Keyv.prototype, 'setMany').mockImplementation(function (this: Keyv, entries) {
    // An adapter without its own setMany gets one `set` per entry from keyv, counted there.
    if (typeof (this.store as { setMany?: unknown }).setMany === 'function') {
      record('setMany', this.namespace, entries);
    }
    return originalSetMany.call(this, entries);
  });
  return () => [...writes];
}

describe('writes per reply', () => {
  it(`makes at most ${maxWritesPerReply} store writes for a reply on Discord, at steady state`, async () => {
    const directory = await mkdtemp(join(tmpdir(), 'parley-writes-'));
    closers.push(() => rm(directory, { recursive: true, force: true }));
    const writes = countWrites();
    const under = await startDiscordUnderTest({
      DISCORD_REPLY_MODE: 'inline',
      STORE_URL: `sqlite://${join(directory, 'parley.sqlite')}`,
    });
    closers.push(() => under.close());
    const counts: number[] = [];
    for (const [index, answer] of ['First.', 'Second.', 'Third.'].entries()) {
      const before = writes().length;
      under.gateway.enqueue({ text: answer });
      under.discord.sendUserMessage({
        channelId: under.generalChannelId,
        content: `question ${index}`,
        mentionsBot: true,
      });
      await under.discord.waitFor(() =>
        under.botMessages(under.generalChannelId).find((message) => message.content.startsWith(answer)),
      );
      // Until the reply's last write (the spending, the journal's end) is made.
      await under.app.engine.whenIdle();
      const made = writes().slice(before);
      counts.push(made.length);
      if (index > 0)
        expect(made.length, `reply ${index + 1}: ${made.join('; ')}`).toBeLessThanOrEqual(maxWritesPerReply);
    }
    // Something was counted: the spending and the history are written on every reply.
    expect(Math.min(...counts)).toBeGreaterThan(0);
  });
});
