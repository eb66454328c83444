import { setTimeout as sleep } from 'node:timers/promises';
import type { Keyv } from 'keyv';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

/** One backing (a database file, a Redis server) that several stores can be opened on. */
export interface StoreBacking {
  /** Opens a store on this backing; two calls with one namespace see the same data. */
  open(namespace: string): Keyv | Promise<Keyv>;
  /** Removes what the test left behind (temp files, Redis keys). */
  dispose(): Promise<void>;
}

export interface StoreContractOptions {
  /** Shown as the suite's name; say why when skipped. */
  readonly name: string;
  readonly isSkipped?: boolean;
  /** Whether data written before closing every store is there after opening again. */
  readonly survivesRestart: boolean;
  /** A fresh, empty backing for each test. */
  createBacking(): Promise<StoreBacking>;
}

/** What every store createStore returns must do, whatever it keeps its data in. */
export function describeStoreContract({
  name,
  isSkipped = false,
  survivesRestart,
  createBacking,
}: StoreContractOptions): void {
  describe.skipIf(isSkipped)(name, () => {
    let backing: StoreBacking;
    const openedStores: Keyv[] = [];

    const open = async (namespace: string): Promise<Keyv> => {
      const store = await backing.open(namespace);
      openedStores.push(store);
      return store;
    };
    const closeAll = async (): Promise<void> => {
      await Promise.all(openedStores.splice(0).map((store) => store.disconnect()));
    };

    beforeEach(async () => {
      backing = await createBacking();
    });

    afterEach(async () => {
      await closeAll();
      await backing.dispose();
    });

    it('reads back what was set, and nothing for a key never set', async () => {
      const store = await open('history');
      await store.set('discord:guild:channel', { text: 'hello' });
      expect(await store.get('discord:guild:channel')).toEqual({ text: 'hello' });
      expect(await store.get('discord:guild:other-channel')).toBeUndefined();
      expect(await store.has('discord:guild:channel')).toBe(true);
      expect(await store.has('discord:guild:other-channel')).toBe(false);
    });

    it('answers operations started together on a store that has not connected yet', async () => {
      const store = await open('settings');
      const keys = ['a', 'b', 'c', 'd'];
      expect(await Promise.all(keys.map((key) => store.get(key)))).toEqual(keys.map(() => undefined));
    });

    it('replaces a value on a second set', async () => {
      const store = await open('history');
      await store.set('key', 'first');
      await store.set('key', 'second');
      expect(await store.get('key')).toBe('second');
    });

    it('keeps numbers, booleans and nested objects as they were', async () => {
      const store = await open('history');
      const value = { count: 3, ratio: 0.25, isFinal: false, nested: { list: [1, 'two', { three: true }] } };
      await store.set('key', value);
      expect(await store.get('key')).toEqual(value);
    });

    it('deletes a key and says whether there was one', async () => {
      const store = await open('history');
      await store.set('key', 'value');
      expect(await store.delete('key')).toBe(true);
      expect(await store.get('key')).toBeUndefined();
      expect(await store.delete('key')).toBe(false);
    });

    it('clears its own namespace and leaves the others on the same backing alone', async () => {
      const history = await open('history');
      const settings = await open('settings');
      await history.set('a', 1);
      await history.set('b', 2);
      await settings.set('a', 'kept');
      await history.clear();
      expect(await history.get('a')).toBeUndefined();
      expect(await history.get('b')).toBeUndefined();
      expect(await settings.get('a')).toBe('kept');
    });

    it('keeps the same key apart in two namespaces', async () => {
      const history = await open('history');
      const settings = await open('settings');
      await history.set('slack:team:channel', 'history value');
      await settings.set('slack:team:channel', 'settings value');
      expect(await history.get('slack:team:channel')).toBe('history value');
      expect(await settings.get('slack:team:channel')).toBe('settings value');
      await settings.delete('slack:team:channel');
      expect(await history.get('slack:team:channel')).toBe('history value');
    });

    it('does not mistake a key that starts with the namespace for an already prefixed one', async () => {
      const store = await open('history');
      await store.set('history:thread', 'prefixed-looking key');
      await store.set('thread', 'plain key');
      expect(await store.get('history:thread')).toBe('prefixed-looking key');
      expect(await store.get('thread')).toBe('plain key');
    });

    it('forgets a value once its ttl has passed, and keeps values without one', async () => {
      const store = await open('history');
      await store.set('short-lived', 'soon gone', 50);
      await store.set('lasting', 'stays');
      expect(await store.get('short-lived')).toBe('soon gone');
      await sleep(150);
      expect(await store.get('short-lived')).toBeUndefined();
      expect(await store.has('short-lived')).toBe(false);
      expect(await store.get('lasting')).toBe('stays');
    });

    it('round-trips unicode in keys and values', async () => {
      const store = await open('history');
      const key = 'discord:gïld:chännel:🧵';
      const value = {
        text: 'héllo 👋🏽 你好 مرحبا שלום e\u0301 \u0000 "quoted" \\ back\nslash',
        startsWithColon: '::not base64',
        lone: '\ud800',
      };
      await store.set(key, value);
      expect(await store.get(key)).toEqual(value);
    });

    it('round-trips a history of 200 turns', async () => {
      const store = await open('history');
      const turns = Array.from({ length: 200 }, (_, index) => ({
        role: index % 2 === 0 ? 'user' : 'assistant',
        author: `person ${index}`,
        text: `turn ${index}: ${'long text with ünïcödé ✓ '.repeat(20)}`,
        usage: index % 2 === 0 ? undefined : { promptTokens: index * 10, completionTokens: index },
        imageUrls: index % 10 === 0 ? ['https://example.test/a.png'] : [],
      }));
      await store.set('discord:guild:channel', turns);
      // Written and read as JSON, so `usage: undefined` comes back without the property.
      expect(await store.get('discord:guild:channel')).toEqual(JSON.parse(JSON.stringify(turns)));
    });

    it.skipIf(!survivesRestart)(
      'still has its data after every store was closed and opened again',
      async () => {
        const before = await open('history');
        await before.set('discord:guild:channel', [{ role: 'user', text: 'remember me' }]);
        await closeAll();
        const after = await open('history');
        expect(await after.get('discord:guild:channel')).toEqual([{ role: 'user', text: 'remember me' }]);
      },
    );
  });
}
