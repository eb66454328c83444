import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Logger, pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createStore, defaultStoreUrl, StoreUrlError } from '../../src/state/create-store.ts';
import { SqliteStore } from '../../src/state/sqlite-store.ts';
import { parseStoreUrl, redactStoreUrl } from '../../src/state/store-url.ts';
import { StoreTimeoutError } from '../../src/state/time-bound-store.ts';
import { startTcpProxy } from '../support/tcp-proxy.ts';

const silentLogger = pino({ level: 'silent' });

/** A pino logger whose lines the test can read. */
function createRecordingLogger(): { logger: Logger; lines: () => Array<Record<string, unknown>> } {
  const written: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => written.push(line) });
  return { logger, lines: () => written.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

describe('parseStoreUrl', () => {
  it('resolves the default sqlite URL against the working directory', () => {
    expect(defaultStoreUrl).toBe('sqlite://./data/parley.sqlite');
    expect(parseStoreUrl({ storeUrl: defaultStoreUrl, workingDirectory: '/srv/parley' })).toEqual({
      kind: 'sqlite',
      filePath: '/srv/parley/data/parley.sqlite',
    });
  });

  it('keeps an absolute sqlite path', () => {
    expect(parseStoreUrl({ storeUrl: 'sqlite:///var/lib/parley/store.sqlite' })).toEqual({
      kind: 'sqlite',
      filePath: '/var/lib/parley/store.sqlite',
    });
  });

  it('knows memory and both redis schemes', () => {
    expect(parseStoreUrl({ storeUrl: 'memory://' })).toEqual({ kind: 'memory' });
    expect(parseStoreUrl({ storeUrl: 'redis://127.0.0.1:6379/2' })).toEqual({
      kind: 'redis',
      url: 'redis://127.0.0.1:6379/2',
    });
    expect(parseStoreUrl({ storeUrl: 'rediss://user:secret@cache.example.test' }).kind).toBe('redis');
  });

  it('rejects an unknown scheme, naming the accepted forms and hiding the password', () => {
    const parse = () => parseStoreUrl({ storeUrl: 'mongodb://bot:hunter2@db.example.test/parley' });
    expect(parse).toThrow(StoreUrlError);
    expect(parse).toThrow(/"mongodb" is not supported/);
    expect(parse).toThrow(
      /memory:\/\/.*sqlite:\/\/\.\/relative.*sqlite:\/\/\/absolute.*redis:\/\/.*rediss:\/\/.*postgres:\/\//,
    );
    expect(parse).not.toThrow(/hunter2/);
  });

  it('reads postgres:// and postgresql:// as a Postgres store', () => {
    expect(parseStoreUrl({ storeUrl: 'postgres://bot:pw@db.example.test:5432/parley' })).toEqual({
      kind: 'postgres',
      url: 'postgres://bot:pw@db.example.test:5432/parley',
    });
    expect(parseStoreUrl({ storeUrl: 'postgresql://db.example.test/parley' }).kind).toBe('postgres');
  });

  it('rejects a URL without a scheme or a sqlite URL without a file', () => {
    expect(() => parseStoreUrl({ storeUrl: './data/parley.sqlite' })).toThrow(/no scheme/);
    expect(() => parseStoreUrl({ storeUrl: 'sqlite://' })).toThrow(/names no file/);
  });

  it('rejects a malformed redis URL without repeating its password', () => {
    const parse = () => parseStoreUrl({ storeUrl: 'redis://user:hunter2@bad host:6379' });
    expect(parse).toThrow(/not a valid URL/);
    expect(parse).not.toThrow(/hunter2/);
  });
});

describe('redactStoreUrl', () => {
  it('hides the password and keeps everything else', () => {
    expect(redactStoreUrl('redis://bot:hunter2@cache:6379/0')).toBe('redis://bot:***@cache:6379/0');
    expect(redactStoreUrl('rediss://:hunter2@cache')).toBe('rediss://:***@cache');
    expect(redactStoreUrl('redis://bot:hun@ter2@cache')).toBe('redis://bot:***@cache');
  });

  it('leaves URLs without a password unchanged', () => {
    expect(redactStoreUrl('redis://cache:6379')).toBe('redis://cache:6379');
    expect(redactStoreUrl('redis://bot@cache')).toBe('redis://bot@cache');
    expect(redactStoreUrl('sqlite:///var/lib/parley.sqlite')).toBe('sqlite:///var/lib/parley.sqlite');
  });
});

describe('createStore', () => {
  it('opens a sqlite store for a sqlite URL', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'parley-create-store-'));
    try {
      const store = createStore({
        storeUrl: `sqlite://${join(directory, 'parley.sqlite')}`,
        namespace: 'history',
        logger: silentLogger,
      });
      expect(store.store).toBeInstanceOf(SqliteStore);
      await store.disconnect();
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it('refuses a namespace that is empty or holds the separator', () => {
    expect(() => createStore({ storeUrl: 'memory://', namespace: '', logger: silentLogger })).toThrow(
      /namespace/,
    );
    expect(() => createStore({ storeUrl: 'memory://', namespace: 'a:b', logger: silentLogger })).toThrow(
      /namespace/,
    );
  });

  it('rejects a failing operation instead of reading the failure as "no value"', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'parley-create-store-'));
    try {
      const store = createStore({
        storeUrl: `sqlite://${join(directory, 'parley.sqlite')}`,
        namespace: 'history',
        logger: silentLogger,
      });
      await store.disconnect();
      await expect(store.get('key')).rejects.toThrow(/is closed/);
      await expect(store.set('key', 'value')).rejects.toThrow(/is closed/);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it('logs an unreachable Redis with the password redacted, fails the operation, and does not crash', async () => {
    const { logger, lines } = createRecordingLogger();
    // Port 1 on loopback: nothing listens there, so every connection attempt is refused at once.
    const store = createStore({
      storeUrl: 'redis://bot:hunter2@127.0.0.1:1',
      namespace: 'history',
      logger,
      redisConnectTimeoutMs: 300,
    });
    await expect(store.get('key')).rejects.toThrow();
    await expect(store.set('key', 'value')).rejects.toThrow();
    await store.disconnect();

    const errorLines = lines().filter((line) => line.msg === 'store error');
    expect(errorLines.length).toBeGreaterThan(0);
    // The connection is shared by every namespace, so its errors are logged once, under no namespace.
    expect(errorLines[0]).toMatchObject({ storeUrl: 'redis://bot:***@127.0.0.1:1' });
    expect(JSON.stringify(lines())).not.toContain('hunter2');
    // The same refusal repeats on every reconnect attempt; it is logged once, not once per attempt.
    const messages = errorLines.map((line) => (line.err as { message?: string } | undefined)?.message);
    expect(new Set(messages).size).toBe(messages.length);
  });
});

const redisUrl = process.env.REDIS_URL;

describe.skipIf(redisUrl === undefined)(
  redisUrl === undefined
    ? 'a frozen Redis (skipped: REDIS_URL is not set; run with REDIS_URL=redis://127.0.0.1:6379)'
    : 'a frozen Redis',
  () => {
    it('fails each operation after the store timeout instead of hanging, and works again once Redis answers', async () => {
      const target = new URL(redisUrl ?? '');
      const proxy = await startTcpProxy({
        targetHost: target.hostname,
        targetPort: Number(target.port || 6379),
      });
      const store = createStore({
        storeUrl: `redis://127.0.0.1:${proxy.port}`,
        namespace: `frozen-test-${process.pid}`,
        logger: silentLogger,
        operationTimeoutMs: 300,
      });
      try {
        await store.set('key', 'before');
        proxy.freeze();
        const startedAtMs = Date.now();
        await expect(store.get('key')).rejects.toThrow(StoreTimeoutError);
        // Once one call went unanswered the next ones give up sooner (createStoreTimeBound).
        await expect(store.set('key', 'during')).rejects.toThrow(/did not answer set within 75 ms/);
        expect(Date.now() - startedAtMs).toBeLessThan(2_000);
        proxy.thaw();
        await store.set('key', 'after');
        expect(await store.get('key')).toBe('after');
      } finally {
        proxy.thaw();
        await store.delete('key').catch(() => undefined);
        await store.disconnect();
        await proxy.close();
      }
    });
  },
);
