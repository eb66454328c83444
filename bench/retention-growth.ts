import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { createOverrideStore } from '../src/administration/override-store.ts';
import { createPlaceSettingsReader, environmentDefaults } from '../src/administration/place-settings.ts';
import { createHistoryStore } from '../src/conversation/history-store.ts';
import type { StoredTurn } from '../src/conversation/turn.ts';
import { historyKeptData } from '../src/retention/history-retention.ts';
import { createKeptDataRegistry } from '../src/retention/kept-data.ts';
import { createPeopleIndex, indexedHistory } from '../src/retention/people-index.ts';
import { createRetentionSweep } from '../src/retention/retention-sweep.ts';
import { openStore } from '../src/state/create-store.ts';
import { createInProcessLock } from '../src/state/keyed-lock.ts';

/**
 * Store growth per turn and over a simulated month and a half, with HISTORY_RETENTION_DAYS on and
 * off (issue 26): each simulated day brings new threads with a few exchanges, written through the
 * real history store and people index on a SQLite file, and the sweep runs once a day on the
 * simulated clock. Prints the file size at the end of each week. `npm run bench:retention`.
 */
const dayMs = 24 * 60 * 60_000;
const days = Number(process.env.BENCH_DAYS ?? 45);
const conversationsPerDay = Number(process.env.BENCH_CONVERSATIONS_PER_DAY ?? 20);
const exchangesPerConversation = 8;
const retentionDays = 14;
const people = ['U1', 'U2', 'U3', 'U4', 'U5', 'U6', 'U7', 'U8'];

/** A person's question and its answer, about the length of a chat exchange (~250 and ~700 characters). */
function exchange(userId: string, atMs: number, index: number): StoredTurn[] {
  const createdAt = new Date(atMs).toISOString();
  return [
    {
      role: 'user',
      authorId: userId,
      authorName: userId,
      text: `question ${index} `.repeat(20),
      images: [],
      createdAt,
    },
    {
      role: 'assistant',
      authorId: 'parley',
      authorName: 'parley',
      text: `answer ${index} `.repeat(80),
      images: [],
      createdAt,
    },
  ];
}

async function simulate({ isRetentionOn }: { isRetentionOn: boolean }) {
  const directory = mkdtempSync(join(tmpdir(), 'parley-retention-bench-'));
  const logger = pino({ level: 'silent' });
  const store = openStore({ storeUrl: `sqlite://${join(directory, 'parley.sqlite')}`, logger });
  const lock = createInProcessLock();
  let nowMs = Date.UTC(2026, 0, 1);
  const index = createPeopleIndex({ store: store.namespace('people'), lock, now: () => nowMs });
  const historyKeyv = store.namespace('history');
  const history = indexedHistory({
    history: createHistoryStore({ store: historyKeyv, maxTurns: 200, logger }),
    index,
    logger,
  });
  const overrides = createOverrideStore({ store: store.namespace('overrides'), lock });
  const defaultRetentionDays = isRetentionOn ? retentionDays : null;
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
      retentionDays: defaultRetentionDays,
    }),
  });
  const registry = createKeptDataRegistry();
  registry.register(
    historyKeptData({ historyKeyv, history, index, runInConversation: (key, task) => lock.run(key, task) }),
  );
  registry.register(index.keptData);
  const sweep = createRetentionSweep({
    registry,
    store,
    places,
    defaultRetentionDays,
    overrides,
    markerKeyv: store.namespace('retention'),
    lock,
    clock: { now: () => nowMs, setTimeout: () => undefined, clearTimeout: () => {} },
    intervalMs: dayMs,
    logger,
  });
  const weekly: Array<{ day: number; kibibytes: number }> = [];
  let turns = 0;
  let sweepMs = 0;
  let bytes = 0;
  for (let day = 1; day <= days; day += 1) {
    for (let conversation = 0; conversation < conversationsPerDay; conversation += 1) {
      const key = `discord:G1:C1:day${day}-${conversation}`;
      for (let index = 0; index < exchangesPerConversation; index += 1) {
        const userId = people[(conversation + index) % people.length] ?? 'U1';
        await history.append(key, exchange(userId, nowMs + index * 60_000, index));
        turns += 2;
      }
    }
    nowMs += dayMs;
    const startedAt = performance.now();
    const report = await sweep.sweepOnce({ isForced: true });
    sweepMs = performance.now() - startedAt;
    bytes = report?.space?.bytesAfter ?? 0;
    if (day % 7 === 0 || day === days) weekly.push({ day, kibibytes: Math.round(bytes / 1024) });
  }
  await store.close();
  rmSync(directory, { recursive: true, force: true });
  return {
    isRetentionOn,
    turns,
    bytesPerTurn: Math.round(bytes / turns),
    finalKibibytes: Math.round(bytes / 1024),
    lastSweepMs: Math.round(sweepMs),
    weekly,
  };
}

const off = await simulate({ isRetentionOn: false });
const on = await simulate({ isRetentionOn: true });
const lines = [
  `${days} simulated days, ${conversationsPerDay} new threads a day, ${exchangesPerConversation} exchanges each (SQLite)`,
  '| day | retention off (KiB) | HISTORY_RETENTION_DAYS=14 (KiB) |',
  '|---:|---:|---:|',
  ...off.weekly.map(
    (point, index) => `| ${point.day} | ${point.kibibytes} | ${on.weekly[index]?.kibibytes ?? ''} |`,
  ),
  JSON.stringify({ off, on }, null, 2),
];
process.stdout.write(`${lines.join('\n')}\n`);
