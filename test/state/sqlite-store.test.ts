import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { Keyv } from 'keyv';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadNodeSqlite } from '../../src/state/load-node-sqlite.ts';
import { inMemorySqliteFilePath, SqliteStore } from '../../src/state/sqlite-store.ts';

const { DatabaseSync } = loadNodeSqlite();
const runFile = promisify(execFile);
const createStoreModuleUrl = new URL('../../src/state/create-store.ts', import.meta.url).href;

describe('SqliteStore', () => {
  let directory: string;
  let filePath: string;
  const openedStores: SqliteStore[] = [];

  const openStore = (namespace = 'history'): { store: SqliteStore; keyv: Keyv } => {
    const store = new SqliteStore({ filePath });
    openedStores.push(store);
    return { store, keyv: new Keyv({ store, namespace, useKeyPrefix: false }) };
  };

  /** Reads the table the way another tool would, past the adapter. */
  const readRows = (): Array<Record<string, unknown>> => {
    const database = new DatabaseSync(filePath);
    try {
      return database.prepare('SELECT key, value, expires FROM entries ORDER BY key').all();
    } finally {
      database.close();
    }
  };

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'parley-sqlite-'));
    filePath = join(directory, 'deeper', 'still-deeper', 'parley.sqlite');
  });

  afterEach(async () => {
    await Promise.all(openedStores.splice(0).map((store) => store.disconnect()));
    await rm(directory, { recursive: true, force: true });
  });

  it('creates the folder of its file and writes in WAL mode', () => {
    const { store } = openStore();
    const database = new DatabaseSync(filePath);
    try {
      expect(database.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
    } finally {
      database.close();
    }
    expect(store.opts.dialect).toBe('sqlite');
  });

  it('stores each key under its namespace in one table', async () => {
    const { keyv } = openStore('history');
    await keyv.set('discord:guild:channel', 'value', 60_000);
    const [row] = readRows();
    expect(row?.key).toBe('history:discord:guild:channel');
    expect(typeof row?.expires).toBe('number');
  });

  it('writes many entries in one call, each under its namespace and with its own expiry', async () => {
    const { store, keyv } = openStore('spend');
    const write = vi.spyOn(store, 'set');
    await keyv.setMany([
      { key: 'tally:a', value: { spent: 1 }, ttl: 60_000 },
      { key: 'ranking:b', value: { a: 2 } },
    ]);
    // One adapter call, not one `set` an entry (keyv splits a setMany only for adapters without one).
    expect(write).not.toHaveBeenCalled();
    const rows = readRows();
    expect(rows.map((row) => row.key)).toEqual(['spend:ranking:b', 'spend:tally:a']);
    expect(rows.map((row) => typeof row.expires)).toEqual(['object', 'number']);
    expect(await keyv.get('tally:a')).toEqual({ spent: 1 });
    expect(await keyv.get('ranking:b')).toEqual({ a: 2 });
  });

  it('clears exactly its namespace, even next to namespaces that share its first letters', async () => {
    const history = openStore('history').keyv;
    const historyOld = openStore('history-old').keyv;
    const historyUnderscore = openStore('history_').keyv;
    await history.set('a', 1);
    await historyOld.set('a', 2);
    await historyUnderscore.set('a', 3);
    await history.clear();
    expect(readRows().map((row) => row.key)).toEqual(['history-old:a', 'history_:a']);
  });

  it('deletes an expired row when it is read, not before', async () => {
    const { keyv } = openStore();
    await keyv.set('gone', 'value', 1);
    await keyv.set('kept', 'value');
    await sleep(10);
    expect(readRows()).toHaveLength(2);
    expect(await keyv.get('gone')).toBeUndefined();
    expect(readRows().map((row) => row.key)).toEqual(['history:kept']);
  });

  it('reads an expired row as missing by itself, not only through keyv', async () => {
    const { store, keyv } = openStore();
    await keyv.set('gone', 'value', 1);
    await sleep(10);
    // keyv.has asks the adapter directly, with no expiry check of its own.
    expect(await keyv.has('gone')).toBe(false);
    expect(await store.get('history:gone')).toBeUndefined();
    expect(readRows()).toEqual([]);
  });

  it('drops every expired row when the file is opened again', async () => {
    const first = openStore();
    await first.keyv.set('gone-1', 'value', 1);
    await first.keyv.set('gone-2', 'value', 1);
    await first.keyv.set('kept', 'value', 60_000);
    await first.store.disconnect();
    await sleep(10);
    openStore();
    expect(readRows().map((row) => row.key)).toEqual(['history:kept']);
  });

  it('iterates the live entries of its namespace, keys without the prefix', async () => {
    const { keyv } = openStore('history');
    await openStore('settings').keyv.set('other', 'not mine');
    await keyv.set('b', 2);
    await keyv.set('a', 1);
    await keyv.set('expired', 0, 1);
    await sleep(10);
    const entries: Array<[string, unknown]> = [];
    if (keyv.iterator === undefined) throw new Error('keyv offered no iterator for the SQLite store');
    for await (const [key, value] of keyv.iterator(keyv.namespace)) entries.push([key, value]);
    expect(entries).toEqual([
      ['a', 1],
      ['b', 2],
    ]);
  });

  it("also works with keyv's default key prefixing", async () => {
    const store = new SqliteStore({ filePath });
    openedStores.push(store);
    const keyv = new Keyv({ store, namespace: 'history' });
    await keyv.set('key', 'value');
    expect(await keyv.get('key')).toBe('value');
    await keyv.clear();
    expect(readRows()).toEqual([]);
  });

  it('refuses a namespace with the separator in it', () => {
    const store = new SqliteStore({ filePath });
    openedStores.push(store);
    expect(() => {
      store.namespace = 'a:b';
    }).toThrow(/must not contain ":"/);
  });

  it('names the file when it is not a database, so the start-up line says which file to move away', async () => {
    await mkdir(dirname(filePath), { recursive: true });
    await writeFile(filePath, Buffer.alloc(8_192, 0x5a));
    expect(() => new SqliteStore({ filePath })).toThrow(
      `the SQLite file ${filePath} cannot be opened (file is not a database)`,
    );
  });

  it('fails clearly once disconnected, and disconnecting twice is harmless', async () => {
    const { store, keyv } = openStore();
    await store.disconnect();
    await store.disconnect();
    await expect(store.get('key')).rejects.toThrow(/is closed/);
    // keyv by default swallows a failed get; createStore turns that off, see create-store.test.ts.
    keyv.throwOnErrors = true;
    await expect(keyv.set('key', 'value')).rejects.toThrow(/is closed/);
  });

  it('keeps an in-memory database without touching the disk', async () => {
    const store = new SqliteStore({ filePath: inMemorySqliteFilePath });
    openedStores.push(store);
    const keyv = new Keyv({ store, namespace: 'history', useKeyPrefix: false });
    await keyv.set('key', 'value');
    expect(await keyv.get('key')).toBe('value');
  });

  it('keeps history across a real restart of the process', async () => {
    const storeUrl = `sqlite://${filePath}`;
    const script = (body: string): string => `
      import { pino } from 'pino';
      import { createStore } from ${JSON.stringify(createStoreModuleUrl)};
      const store = createStore({ storeUrl: ${JSON.stringify(storeUrl)}, namespace: 'history', logger: pino({ level: 'silent' }) });
      ${body}
      await store.disconnect();
    `;
    const run = (body: string) =>
      runFile(process.execPath, ['--input-type=module', '--eval', script(body)], { cwd: process.cwd() });

    const writer = await run(`await store.set('discord:guild:channel', [{ role: 'user', text: 'héllo' }]);`);
    const reader = await run(
      `process.stdout.write(JSON.stringify(await store.get('discord:guild:channel')));`,
    );

    expect(JSON.parse(reader.stdout)).toEqual([{ role: 'user', text: 'héllo' }]);
    // No ExperimentalWarning (or anything else) on stderr, on any supported Node version.
    expect(writer.stderr + reader.stderr).toBe('');
  });

  it('writes a file deleted while it runs anew from the open connection, losing nothing, and says so', async () => {
    const history = openStore('history');
    const settings = openStore('settings');
    const troubles: string[] = [];
    history.keyv.on('error', (error: Error) => troubles.push(error.message));
    await history.keyv.set('before', 'kept');
    await settings.keyv.set('model', 'gpt');
    await rm(dirname(filePath), { recursive: true, force: true });
    await history.keyv.set('after', 'also kept');
    expect(troubles).toEqual([expect.stringMatching(/was deleted while parley ran; it was written anew/)]);
    // Another reader of the path (a restarted parley) finds everything, both namespaces.
    expect(readRows().map((row) => row.key)).toEqual(['history:after', 'history:before', 'settings:model']);
    await settings.keyv.set('system', 'be brief');
    expect(readRows().map((row) => row.key)).toContain('settings:system');
  });

  it('restores a deleted file whose write-ahead log was left behind, without mixing the two', async () => {
    const { keyv } = openStore();
    for (let index = 0; index < 50; index += 1) await keyv.set(`key-${index}`, 'x'.repeat(500));
    await rm(filePath);
    await keyv.set('after', 'value');
    const keys = readRows().map((row) => row.key);
    expect(keys).toHaveLength(51);
    expect(keys).toContain('history:after');
    const database = new DatabaseSync(filePath);
    try {
      expect(database.prepare('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' });
    } finally {
      database.close();
    }
  });

  it('uses the new file when the file is replaced while it runs', async () => {
    const { keyv } = openStore();
    await keyv.set('old', 'value');
    const replacement = new SqliteStore({ filePath: `${filePath}.new` });
    await new Keyv({ store: replacement, namespace: 'history', useKeyPrefix: false }).set(
      'restored',
      'from backup',
    );
    await replacement.disconnect();
    await rename(`${filePath}.new`, filePath);
    await keyv.set('new', 'value');
    expect(await keyv.get('restored')).toBe('from backup');
    expect(readRows().map((row) => row.key)).toEqual(['history:new', 'history:restored']);
  });
  describe('group commit: the writes of one turn share one transaction', () => {
    it('commits every write of a turn together, and each settles only once it is in the file', async () => {
      const { store, keyv } = openStore();
      const counters = openStore('spend').keyv;
      // Writes a reply makes at once (its spend counters and its history), none awaited yet.
      const writes = [
        keyv.set('history-of-a', 'turns'),
        counters.set('counter:a', 1),
        counters.set('counter:b', 2),
      ];
      // The store itself sees them at once: a read after a write never reads the older value.
      await Promise.resolve();
      expect(await store.get('history-of-a')).toBeDefined();
      // Another connection (another tool, another process) sees nothing before the commit.
      expect(readRows()).toEqual([]);
      expect(await Promise.all(writes)).toEqual([true, true, true]);
      expect(readRows().map((row) => row.key)).toEqual([
        'history:history-of-a',
        'spend:counter:a',
        'spend:counter:b',
      ]);
    });

    it("writes the turn's writes before the connection closes", async () => {
      const { store, keyv } = openStore();
      const written = keyv.set('last-words', 'kept');
      const deleted = keyv.delete('never-there');
      await Promise.resolve();
      await store.disconnect();
      await expect(written).resolves.toBe(true);
      await expect(deleted).resolves.toBe(false);
      expect(readRows().map((row) => row.key)).toEqual(['history:last-words']);
    });

    it('fails the writes that could not get the file from another process, and writes again once it is free', async () => {
      const store = new SqliteStore({ filePath, busyTimeoutMs: 50 });
      openedStores.push(store);
      const keyv = new Keyv({ store, namespace: 'history', useKeyPrefix: false });
      keyv.throwOnErrors = true;
      await keyv.set('before', 'value');
      const otherProcess = new DatabaseSync(filePath);
      try {
        otherProcess.exec('BEGIN IMMEDIATE');
        await expect(keyv.set('while-locked', 'value')).rejects.toThrow(/locked|busy/i);
        otherProcess.exec('ROLLBACK');
      } finally {
        otherProcess.close();
      }
      await keyv.set('after', 'value');
      expect(readRows().map((row) => row.key)).toEqual(['history:after', 'history:before']);
    });
  });
});
