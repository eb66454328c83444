import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { conversationKeyOf, placeOfConversation } from '../../src/conversation/turn.ts';
import { openStore, redisClientOf, type Store } from '../../src/state/create-store.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';
import { buildTestBot, type TestBot } from '../support/test-bot.ts';

const silentLogger = pino({ level: 'silent' });
const redisUrl = process.env.REDIS_URL;

describe('openStore: one store, a namespace per use', () => {
  it('keeps namespaces apart on one memory store', async () => {
    const store = openStore({ storeUrl: 'memory://', logger: silentLogger });
    const history = store.namespace('history');
    const settings = store.namespace('settings');
    await history.set('key', 'from history');
    await settings.set('key', 'from settings');
    expect(await history.get('key')).toBe('from history');
    expect(await settings.get('key')).toBe('from settings');
    await settings.clear();
    expect(await history.get('key')).toBe('from history');
    expect(store.isShared).toBe(false);
    expect(await store.redisClient()).toBeUndefined();
    await store.close();
  });

  it('refuses a namespace with ":" in it', () => {
    const store = openStore({ storeUrl: 'memory://', logger: silentLogger });
    expect(() => store.namespace('a:b')).toThrow(/no ":"/);
  });
});

describe.skipIf(redisUrl === undefined)(
  redisUrl === undefined
    ? 'openStore on Redis (skipped: REDIS_URL is not set; run with REDIS_URL=redis://127.0.0.1:6379)'
    : 'openStore on Redis',
  () => {
    let proxy: TcpProxy | undefined;
    let store: Store | undefined;
    let bot: TestBot | undefined;
    afterEach(async () => {
      await bot?.close();
      await store?.close();
      await proxy?.close();
      bot = undefined;
      store = undefined;
      proxy = undefined;
    });

    const proxyToRedis = async () => {
      const target = new URL(redisUrl ?? '');
      proxy = await startTcpProxy({ targetHost: target.hostname, targetPort: Number(target.port || 6379) });
      return proxy;
    };

    it('serves every namespace over one connection, which closes with the store, not with a namespace', async () => {
      const { port } = await proxyToRedis();
      store = openStore({ storeUrl: `redis://127.0.0.1:${port}`, logger: silentLogger });
      const prefix = `open-store-test-${randomUUID().slice(0, 8)}`;
      const first = store.namespace(`${prefix}-a`);
      const second = store.namespace(`${prefix}-b`);
      await Promise.all([first.set('key', 'a'), second.set('key', 'b')]);
      expect(await first.get('key')).toBe('a');
      expect(await second.get('key')).toBe('b');
      const client = await store.redisClient();
      expect(await redisClientOf(first)).toBe(client);
      expect(await redisClientOf(second)).toBe(client);
      await first.clear();
      await first.disconnect();
      expect(await second.get('key')).toBe('b');
      await second.clear();
      expect(proxy?.connectionCount).toBe(1);
      await store.close();
      expect(client?.isOpen).toBe(false);
    });

    it('the whole bot, every use of the store included, opens one connection to it', async () => {
      const { port } = await proxyToRedis();
      bot = buildTestBot({
        gatewayBaseUrl: 'http://127.0.0.1:9/api/v1',
        gatewayApiKey: 'test-key',
        environment: { STORE_URL: `redis://127.0.0.1:${port}` },
      });
      const key = conversationKeyOf({
        platform: 'console',
        workspace: 'local',
        channel: `seam-${randomUUID()}`,
      });
      await bot.app.probeStore();
      await bot.app.history.load(key);
      await bot.app.settings.get(key);
      await bot.app.overrides.read(placeOfConversation(key));
      await bot.services.actionStore.load(`missing-${randomUUID()}`);
      await bot.app.spending.standings({ userId: `seam-${randomUUID()}`, roleIds: [], conversationKey: key });
      expect(proxy?.connectionCount).toBe(1);
    });
  },
);
