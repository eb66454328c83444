import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Keyv } from 'keyv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOverrideStore } from '../../src/administration/override-store.ts';
import { createPlaceSettingsReader, environmentDefaults } from '../../src/administration/place-settings.ts';
import { createHistoryStore, type HistoryStore } from '../../src/conversation/history-store.ts';
import type { StoredTurn } from '../../src/conversation/turn.ts';
import type { Clock } from '../../src/delivery/clock.ts';
import { createDocumentStore, type DocumentStore } from '../../src/documents/document-store.ts';
import type { ExtractedDocument } from '../../src/documents/extracted-document.ts';
import { documentKeptData } from '../../src/retention/document-retention.ts';
import { feedbackKeptData } from '../../src/retention/feedback-retention.ts';
import {
  documentHashesCited,
  historyKeptData,
  listConversations,
  type RunInConversation,
} from '../../src/retention/history-retention.ts';
import { journalKeptData } from '../../src/retention/journal-retention.ts';
import { createKeptDataRegistry } from '../../src/retention/kept-data.ts';
import { createPeopleIndex, indexedHistory, type PeopleIndex } from '../../src/retention/people-index.ts';
import { createRetentionSweep, type RetentionSweep } from '../../src/retention/retention-sweep.ts';
import { openStore, type Store } from '../../src/state/create-store.ts';
import { createInProcessLock } from '../../src/state/keyed-lock.ts';
import { createCapturedLogger } from '../support/capture-logger.ts';

/**
 * The retention sweep on every store (issue 26): what is older than HISTORY_RETENTION_DAYS at its
 * place goes, what is newer or where retention is off stays, expired entries leave the file or
 * table, and SQLite gives the space back.
 */
const dayMs = 24 * 60 * 60_000;
const redisUrl = process.env.REDIS_URL;
const databaseUrl = process.env.DATABASE_URL;

interface Backing {
  readonly name: string;
  readonly isSkipped?: boolean;
  open(): Promise<{ storeUrl: string; dispose(): Promise<void> }>;
}

const backings: Backing[] = [
  { name: 'memory:// store', open: async () => ({ storeUrl: 'memory://', dispose: async () => {} }) },
  {
    name: 'sqlite:// store',
    async open() {
      const directory = await mkdtemp(join(tmpdir(), 'parley-retention-'));
      return {
        storeUrl: `sqlite://${join(directory, 'parley.sqlite')}`,
        dispose: () => rm(directory, { recursive: true, force: true }),
      };
    },
  },
  {
    name:
      redisUrl === undefined
        ? 'redis:// store (skipped: REDIS_URL is not set; run with REDIS_URL=redis://127.0.0.1:6379)'
        : 'redis:// store',
    isSkipped: redisUrl === undefined,
    open: async () => ({ storeUrl: redisUrl ?? '', dispose: async () => {} }),
  },
  {
    name:
      databaseUrl === undefined
        ? 'postgres:// store (skipped: DATABASE_URL is not set; run with DATABASE_URL=postgres://postgres@127.0.0.1:5432/test)'
        : 'postgres:// store',
    isSkipped: databaseUrl === undefined,
    open: async () => ({ storeUrl: databaseUrl ?? '', dispose: async () => {} }),
  },
];

function turn(role: 'user' | 'assistant', text: string, ageDays: number, authorId = 'U1'): StoredTurn {
  return {
    role,
    authorId: role === 'user' ? authorId : 'parley',
    authorName: role === 'user' ? 'Ada' : 'parley',
    text,
    images: [],
    createdAt: new Date(Date.now() - ageDays * dayMs).toISOString(),
  };
}

interface Rig {
  readonly store: Store;
  readonly namespaces: Keyv[];
  readonly history: HistoryStore;
  readonly historyKeyv: Keyv;
  readonly feedbackKeyv: Keyv;
  readonly journalKeyv: Keyv;
  /** A namespace no kept data walks, for entries only the store's own expiry removes. */
  readonly scratchKeyv: Keyv;
  readonly documents: DocumentStore;
  readonly index: PeopleIndex;
  readonly overrides: ReturnType<typeof createOverrideStore>;
  readonly sweep: RetentionSweep;
  readonly log: () => string;
  readonly timers: Array<{ callback: () => void; delayMs: number }>;
}

/** The sweep as the app builds it, on namespaces of this run only (the server stores are shared). */
function buildRig(storeUrl: string, runId: string, markerKeyv?: Keyv): Rig {
  const { logger, output } = createCapturedLogger();
  const store = openStore({ storeUrl, logger });
  const namespaces: Keyv[] = [];
  const namespace = (name: string) => {
    const keyv = store.namespace(`t${runId}${name}`);
    namespaces.push(keyv);
    return keyv;
  };
  const historyKeyv = namespace('history');
  const lock = createInProcessLock();
  const index = createPeopleIndex({ store: namespace('people'), lock });
  const history = indexedHistory({
    history: createHistoryStore({ store: historyKeyv, maxTurns: 200, logger }),
    index,
    logger,
  });
  const overrides = createOverrideStore({ store: namespace('overrides'), lock });
  const places = createPlaceSettingsReader({
    overrides,
    defaults: environmentDefaults({
      limits: {},
      roleLimits: {},
      access: {
        allowUserIds: [],
        blockUserIds: [],
        allowRoleIds: [],
        blockRoleIds: [],
        allowChannelIds: [],
        blockChannelIds: [],
        directMessages: 'on',
        groupDirectMessages: 'off',
        userInstalls: 'off',
        commandRoleIds: {},
        sharedWriterRoleIds: [],
      },
      tools: { patterns: ['*'], roleIds: {} },
      retentionDays: 30,
    }),
  });
  const documents = createDocumentStore({
    store: namespace('documents'),
    maxTotalBytes: 10_000_000,
    lifetimeMs: 400 * dayMs,
  });
  const feedbackKeyv = namespace('feedback');
  const journalKeyv = namespace('journal');
  const registry = createKeptDataRegistry();
  const runInConversation: RunInConversation = (key, task) => lock.run(key, task);
  registry.register(historyKeptData({ historyKeyv, history, index, runInConversation }));
  registry.register(index.keptData);
  registry.register(
    documentKeptData({
      documents,
      citedHashes: () =>
        documentHashesCited({ history, conversationKeys: () => listConversations(historyKeyv) }),
    }),
  );
  registry.register(feedbackKeptData({ feedbackKeyv }));
  registry.register(journalKeptData({ journalKeyv }));
  const timers: Rig['timers'] = [];
  const clock: Clock = {
    now: () => Date.now(),
    setTimeout: (callback, delayMs) => {
      timers.push({ callback, delayMs });
      return timers.length;
    },
    clearTimeout: () => {},
  };
  const sweep = createRetentionSweep({
    registry,
    store,
    places,
    defaultRetentionDays: 30,
    overrides,
    markerKeyv: markerKeyv ?? namespace('retention'),
    lock,
    clock,
    intervalMs: 60 * 60_000,
    logger,
  });
  return {
    store,
    namespaces,
    history,
    historyKeyv,
    feedbackKeyv,
    journalKeyv,
    scratchKeyv: namespace('scratch'),
    documents,
    index,
    overrides,
    sweep,
    log: output,
    timers,
  };
}

const oldConversation = 'discord:G1:C1';
const mixedConversation = 'discord:G1:C2';
const keptForeverConversation = 'discord:G1:C3';

describe.each(backings)('the retention sweep on a $name', (backing) => {
  let rig: Rig;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    if (backing.isSkipped) return;
    const opened = await backing.open();
    dispose = opened.dispose;
    rig = buildRig(opened.storeUrl, randomUUID().replaceAll('-', '').slice(0, 12));
  });
  afterAll(async () => {
    if (backing.isSkipped) return;
    await Promise.all(rig.namespaces.map((keyv) => keyv.clear()));
    await rig.store.close();
    await dispose();
  });

  it.skipIf(backing.isSkipped)(
    'removes turns, ratings, replies in flight and documents older than the place keeps them, and nothing newer',
    async () => {
      const padding = 'x'.repeat(20_000);
      await rig.history.append(oldConversation, [
        turn('user', `old ${padding}`, 40),
        turn('assistant', 'old answer', 40),
      ]);
      await rig.history.append(mixedConversation, [
        turn('user', `old ${padding}`, 45),
        turn('assistant', 'old answer', 45),
        turn('user', 'new question', 2),
        turn('assistant', 'new answer', 2),
      ]);
      await rig.history.append(keptForeverConversation, [
        turn('user', 'ancient', 400),
        turn('assistant', 'ancient answer', 400),
      ]);
      await rig.overrides.change({
        place: { platform: 'discord', workspace: 'G1', channel: 'C3' },
        scope: 'channel',
        name: 'HISTORY_RETENTION_DAYS',
        value: null,
        changedBy: { id: 'A1', name: 'admin' },
        at: new Date(),
      });
      await rig.feedbackKeyv.set(`${mixedConversation}|${new Date().toISOString()}|U1`, {
        rating: 'positive',
        model: 'm',
        platform: 'discord',
        ratedAt: new Date(Date.now() - 40 * dayMs).toISOString(),
      });
      await rig.feedbackKeyv.set(`${mixedConversation}|x|U2`, {
        rating: 'negative',
        model: 'm',
        platform: 'discord',
        ratedAt: new Date().toISOString(),
      });
      await rig.journalKeyv.set('discord:old', {
        conversationKey: mixedConversation,
        startedAt: new Date(Date.now() - 31 * dayMs).toISOString(),
        turn: { authorId: 'U1', authorName: 'Ada', text: 'hi' },
      });
      const document: ExtractedDocument = {
        name: 'a.txt',
        kind: 'text',
        sections: [{ location: 'line 1', text: 'words' }],
        pageImages: [],
        notes: [],
      };
      const keep = createDocumentStore({
        store: rig.namespaces.find((keyv) => keyv.namespace?.endsWith('documents')) as Keyv,
        maxTotalBytes: 10_000_000,
        lifetimeMs: 400 * dayMs,
        now: () => Date.now() - 35 * dayMs,
      });
      await keep.keep('oldhash', document);
      await rig.documents.keep('newhash', document);

      const report = await rig.sweep.sweepOnce({ isForced: true });

      expect(report?.removed).toMatchObject({ history: 4, feedback: 1, journal: 1, documents: 1 });
      expect(await rig.history.load(oldConversation)).toEqual([]);
      expect((await rig.history.load(mixedConversation)).map((kept) => kept.text)).toEqual([
        'new question',
        'new answer',
      ]);
      expect(await rig.history.load(keptForeverConversation)).toHaveLength(2);
      expect(await rig.feedbackKeyv.get(`${mixedConversation}|x|U2`)).toBeDefined();
      expect(await rig.journalKeyv.get('discord:old')).toBeUndefined();
      expect(await rig.documents.remove({ hashes: [] })).toBe(0);
      expect(await keep.load('oldhash')).toBeUndefined();
      expect(await rig.documents.load('newhash')).toBeDefined();
      expect(rig.log()).toMatch(/"msg":"retention sweep"/);
      expect(rig.log()).toMatch(/"removed":\{[^}]*"history":4/);
    },
  );

  it.skipIf(backing.isSkipped)(
    'filled the index of who wrote where from the history kept before it',
    async () => {
      expect(await rig.index.isBackfilled()).toBe(true);
      expect(await rig.index.conversationsOf({ platform: 'discord', userId: 'U1' })).toEqual(
        expect.arrayContaining([mixedConversation, keptForeverConversation]),
      );
    },
  );

  it.skipIf(backing.isSkipped)(
    'drops entries whose time to live has passed from the file or table',
    async () => {
      await rig.scratchKeyv.set('short', 'lived', 1);
      await new Promise((resolve) => setTimeout(resolve, 20));
      const report = await rig.sweep.sweepOnce({ isForced: true });
      // Redis drops its own; the others keep the row until it is read or swept.
      if (rig.store.kind !== 'redis') expect(report?.expired ?? 0).toBeGreaterThanOrEqual(1);
      if (rig.store.kind === 'sqlite') {
        expect(report?.space?.bytesAfter).toBeLessThanOrEqual(report?.space?.bytesBefore ?? 0);
      }
    },
  );

  it.skipIf(backing.isSkipped)(
    'skips when a sweep ran within the interval, and runs on its clock',
    async () => {
      expect(await rig.sweep.sweepOnce()).toBeUndefined();
      rig.sweep.start();
      expect(rig.timers.at(-1)?.delayMs).toBe(60_000);
      rig.sweep.stop();
    },
  );
});

describe('the retention sweep on SQLite gives the space back', () => {
  it('shrinks the file once old conversations are removed', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'parley-retention-space-'));
    const rig = buildRig(`sqlite://${join(directory, 'parley.sqlite')}`, 'space');
    try {
      for (let index = 0; index < 40; index += 1) {
        await rig.history.append(`discord:G1:old${index}`, [
          turn('user', 'y'.repeat(50_000), 60),
          turn('assistant', 'answer', 60),
        ]);
      }
      const report = await rig.sweep.sweepOnce({ isForced: true });
      expect(report?.removed.history).toBe(80);
      expect(report?.space?.bytesBefore).toBeGreaterThan(2_000_000);
      expect(report?.space?.bytesAfter).toBeLessThan((report?.space?.bytesBefore ?? 0) / 4);
    } finally {
      await rig.store.close();
      await rm(directory, { recursive: true, force: true });
    }
  });
});
