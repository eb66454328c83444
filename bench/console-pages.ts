import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createClient } from '@redis/client';
import { auditKinds } from '../src/audit/audit-entry.ts';
import { createAuditLog } from '../src/audit/audit-log.ts';
import type { RunningConsole } from '../src/console/console-server.ts';
import { conversationKeyOf } from '../src/conversation/turn.ts';
import { createInProcessLock } from '../src/state/keyed-lock.ts';
import { createConsoleClient } from '../test/support/console-client.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../test/support/discord-under-test.ts';
import { startWebConsoleUnderTest } from '../test/support/web-console-under-test.ts';
import { percentile } from './statistics.ts';

/**
 * The owner's console pages over a large spend store (issue 35, "Performance"): fills a store with
 * settled spends through the real usage ledger (so the tallies are what real use leaves) and audit
 * entries through the real audit log, starts the real console server over it as the tests do (the
 * bot on the fake Discord, an admin signed in through its OAuth pages), and requests the overview,
 * spend (by day, week, month) and audit pages (first page, filtered) over HTTP, on SQLite, Redis
 * (REDIS_URL) and Postgres (DATABASE_URL). Prints p50/p95 per page per store as a markdown table.
 * `npm run bench:console -- [--events 1000000] [--audit 10000] [--requests 200] [--stores sqlite,redis,postgres]`.
 */
const { values: flags } = parseArgs({
  options: {
    events: { type: 'string', default: '1000000' },
    audit: { type: 'string', default: '10000' },
    requests: { type: 'string', default: '200' },
    stores: { type: 'string', default: 'sqlite,redis,postgres' },
    people: { type: 'string', default: '2000' },
    channels: { type: 'string', default: '50' },
    days: { type: 'string', default: '40' },
    concurrency: { type: 'string', default: '32' },
  },
});
const eventCount = Number(flags.events);
const auditCount = Number(flags.audit);
const requestCount = Number(flags.requests);
const peopleCount = Number(flags.people);
const channelCount = Number(flags.channels);
const dayCount = Number(flags.days);
const concurrency = Number(flags.concurrency);
const models = ['chat-model', 'summary-model', 'drawing-model', 'reasoning-model', 'small-model'];
const tools = ['web_search', 'fetch_page', 'run_code'];
const dayMs = 24 * 60 * 60_000;
/** node-postgres (already here under @keyv/postgres) ships no types; the little this bench uses of it. */
const pg = createRequire(import.meta.url)('pg') as {
  Client: new (options: {
    connectionString: string;
  }) => {
    connect(): Promise<void>;
    query(sql: string): Promise<unknown>;
    end(): Promise<void>;
  };
};
const targetP95Ms = 200;

interface StoreUnderBench {
  readonly name: string;
  readonly storeUrl: string;
  cleanUp(): Promise<void>;
}

/** A fresh SQLite file in a temporary directory. */
function sqliteStore(): StoreUnderBench {
  const directory = mkdtempSync(join(tmpdir(), 'parley-console-bench-'));
  return {
    name: 'SQLite',
    storeUrl: `sqlite://${join(directory, 'parley.sqlite')}`,
    cleanUp: async () => rmSync(directory, { recursive: true, force: true }),
  };
}

/**
 * A Redis logical database that is empty now (the store has no key prefix of its own, so a database
 * apart from the other helpers' keys stands in for one), emptied again afterwards.
 */
async function redisStore(redisUrl: string): Promise<StoreUnderBench | string> {
  for (const index of [13, 12, 11, 10]) {
    const url = new URL(redisUrl);
    url.pathname = `/${index}`;
    const client = createClient({ url: url.toString() });
    await client.connect();
    const size = await client.dbSize();
    await client.quit();
    if (size > 0) continue;
    return {
      name: 'Redis',
      storeUrl: url.toString(),
      async cleanUp() {
        const cleaner = createClient({ url: url.toString() });
        await cleaner.connect();
        await cleaner.flushDb();
        await cleaner.quit();
      },
    };
  }
  return 'Redis skipped: no empty logical database among 10-13 to fill';
}

/** A database of its own on the Postgres server, dropped afterwards. */
async function postgresStore(databaseUrl: string): Promise<StoreUnderBench> {
  const name = `parley_console_bench_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  return {
    name: 'Postgres',
    storeUrl: url.toString(),
    async cleanUp() {
      const dropper = new pg.Client({ connectionString: databaseUrl });
      await dropper.connect();
      await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await dropper.end();
    },
  };
}

/** Runs `work(0..count-1)` with at most `concurrency` at once. */
async function inParallel(count: number, work: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next;
      next += 1;
      await work(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

/** Settled spends spread over the people, channels, models and days, through the real ledger. */
async function fillSpends(under: DiscordUnderTest, nowMs: number): Promise<number> {
  const guildId = under.discord.guildId;
  const startedMs = performance.now();
  await inParallel(eventCount, async (index) => {
    const channel = `bench-channel-${index % channelCount}`;
    const model = models[index % models.length] ?? 'chat-model';
    const costNanos = 1_000_000 + (index % 997) * 10_000;
    const atMs = nowMs - (index % dayCount) * dayMs - (index % 3_600) * 1_000;
    await under.services.usage.settle({
      reservationId: `console-bench-${index}`,
      subject: {
        userId: `bench-person-${index % peopleCount}`,
        conversationKey: conversationKeyOf({ platform: 'discord', workspace: guildId, channel }),
        budgetedRoleIds: [],
      },
      heldCounters: [],
      spent: { promptTokens: 800, completionTokens: 300, images: 0, costNanos },
      costByModel: { [model]: costNanos },
      ...(index % 10 === 0
        ? { toolCalls: { [tools[index % tools.length] ?? 'web_search']: { calls: 1, errors: 0 } } }
        : {}),
      at: new Date(atMs),
    });
    if ((index + 1) % 50_000 === 0) {
      const seconds = (performance.now() - startedMs) / 1_000;
      console.error(`  ${index + 1} spends settled in ${seconds.toFixed(0)} s`);
    }
  });
  return (performance.now() - startedMs) / 1_000;
}

/**
 * Audit entries through the real audit log on the bot's own `audit` namespace, on a clock that
 * walks back over the days, so no day reaches the daily cap and the pages read across days.
 */
async function fillAudit(under: DiscordUnderTest, nowMs: number): Promise<number> {
  const startedMs = performance.now();
  let clockMs = nowMs;
  const audit = createAuditLog({
    store: under.app.store.namespace('audit'),
    lock: createInProcessLock(),
    logger: under.services.logger,
    now: () => clockMs,
    minimumRetentionDays: undefined,
  });
  for (let index = 0; index < auditCount; index += 1) {
    clockMs = nowMs - (index % dayCount) * dayMs - index * 1_000;
    const person = `bench-person-${index % peopleCount}`;
    await audit.record({
      platform: 'discord',
      workspace: under.discord.guildId,
      channel: `bench-channel-${index % channelCount}`,
      actor: { id: person, name: person },
      kind: auditKinds[index % auditKinds.length] ?? 'tool-call',
      what: `bench deed ${index}`,
      result: 'done',
    });
  }
  return (performance.now() - startedMs) / 1_000;
}

interface PageFigures {
  readonly page: string;
  readonly p50: number;
  readonly p95: number;
}

async function measurePages(under: DiscordUnderTest, webConsole: RunningConsole): Promise<PageFigures[]> {
  const admin = under.discord.createUser({ username: 'bench-admin', globalName: 'Bench Admin' });
  under.discord.joinGuild(admin.id);
  const managers = under.discord.createRole({ name: 'bench-managers', permissions: ['manage-guild'] });
  under.discord.giveRole(admin.id, managers);
  under.discord.oauth.approveAs(admin.id);
  const browser = createConsoleClient(webConsole.origin);
  const picker = await browser.get('/sign-in/discord');
  if (picker.status !== 200) throw new Error(`sign-in answered ${picker.status}`);
  const place = `/places/discord/${under.discord.guildId}`;
  const pages = [
    ['overview', `${place}/overview`],
    ['spend by=day', `${place}/spend?by=day`],
    ['spend by=week', `${place}/spend?by=week`],
    ['spend by=month', `${place}/spend?by=month`],
    ['audit, first page', `${place}/audit`],
    ['audit, kind=config-change', `${place}/audit?kind=config-change`],
  ] as const;
  const figures: PageFigures[] = [];
  for (const [page, path] of pages) {
    const timings: number[] = [];
    for (let round = 0; round < requestCount; round += 1) {
      const startedMs = performance.now();
      const answer = await browser.get(path);
      timings.push(performance.now() - startedMs);
      if (answer.status !== 200) throw new Error(`${path} answered ${answer.status}`);
    }
    figures.push({
      page,
      p50: percentile(timings, 0.5) ?? Number.NaN,
      p95: percentile(timings, 0.95) ?? Number.NaN,
    });
  }
  return figures;
}

async function benchStore(store: StoreUnderBench) {
  const under = await startDiscordUnderTest({ STORE_URL: store.storeUrl, LOG_LEVEL: 'error' });
  const { scheduling: _schedulesOff, ...withoutSchedules } = under.services;
  const webConsole = await startWebConsoleUnderTest({ ...under, services: withoutSchedules });
  try {
    const nowMs = Date.now();
    const spendSeconds = await fillSpends(under, nowMs);
    const auditSeconds = await fillAudit(under, nowMs);
    console.error(
      `${store.name}: ${eventCount} spends in ${spendSeconds.toFixed(0)} s, ${auditCount} audit entries in ${auditSeconds.toFixed(0)} s`,
    );
    const pages = await measurePages(under, webConsole);
    return { store: store.name, spendSeconds, auditSeconds, pages };
  } finally {
    await webConsole.close();
    await under.close();
    await store.cleanUp();
  }
}

const wanted = new Set(flags.stores.split(',').map((name) => name.trim().toLowerCase()));
const results: Awaited<ReturnType<typeof benchStore>>[] = [];
const notes: string[] = [];
if (wanted.has('sqlite')) results.push(await benchStore(sqliteStore()));
if (wanted.has('redis')) {
  const redisUrl = process.env.REDIS_URL;
  if (redisUrl === undefined) notes.push('Redis skipped: REDIS_URL is not set');
  else {
    const store = await redisStore(redisUrl);
    if (typeof store === 'string') notes.push(store);
    else results.push(await benchStore(store));
  }
}
if (wanted.has('postgres')) {
  const databaseUrl = process.env.DATABASE_URL;
  if (databaseUrl === undefined) notes.push('Postgres skipped: DATABASE_URL is not set');
  else results.push(await benchStore(await postgresStore(databaseUrl)));
}

const milliseconds = (value: number) => `${value.toFixed(1)} ms`;
const lines = [
  `Console pages: ${eventCount} settled spends (${peopleCount} people, ${channelCount} channels, ${models.length} models, ${dayCount} days), ${auditCount} audit entries, ${requestCount} requests per page; target p95 ≤ ${targetP95Ms} ms`,
  '',
  '| Store | Page | p50 | p95 | ≤ 200 ms p95 |',
  '|---|---|---|---|---|',
  ...results.flatMap(({ store, pages }) =>
    pages.map(
      ({ page, p50, p95 }) =>
        `| ${store} | ${page} | ${milliseconds(p50)} | ${milliseconds(p95)} | ${p95 <= targetP95Ms ? 'yes' : '**no**'} |`,
    ),
  ),
  '',
  ...results.map(
    ({ store, spendSeconds, auditSeconds }) =>
      `${store}: filled in ${spendSeconds.toFixed(0)} s (spends, ${(eventCount / spendSeconds).toFixed(0)}/s) + ${auditSeconds.toFixed(0)} s (audit)`,
  ),
  ...notes,
];
process.stdout.write(`${lines.join('\n')}\n`);
process.exit(0);
