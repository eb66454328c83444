import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { askOnDiscord } from '../discord-turns.ts';
import { startRedisLink } from '../redis-link.ts';
import { largeNoisePng } from '../sample-inputs.ts';
import type { Scenario } from '../scenario.ts';
import { mountScratchFileSystem } from '../scratch-file-system.ts';
import { describeHistory, readHistory } from '../store-observations.ts';
import { quote } from '../turn-judgement.ts';
import { BotDidNotStart } from '../world.ts';
import { png } from './inputs-kinds.ts';
import {
  checkpoint,
  holdsExactly,
  overwriteWithGarbage,
  ownWorld,
  readiness,
  requireRedis,
  runSlashCommand,
  secondsUntilWarning,
  sqlitePathOf,
  stopBot,
  storedBytes,
  turnsOf,
} from './store-kinds.ts';

/** Store faults: SQLite deleted, corrupt, full or read-only; Redis down or frozen. */
export const storeScenarios: Scenario[] = [
  {
    id: 'store-sqlite-deleted',
    area: 'store',
    fault: 'the SQLite file (and its -wal, -shm) deleted while parley runs',
    expected: 'later turns answered and kept; after a restart the whole history is there',
    expectedOutcome: 'survived',
    isInShortRun: true,
    async run(context) {
      const world = await ownWorld(context);
      const channelId = world.newChannel();
      const before = await askOnDiscord({ world, channelId, text: 'remember this' });
      const filePath = sqlitePathOf(world);
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${filePath}${suffix}`, { force: true });
      const after = await askOnDiscord({ world, channelId, text: 'and this' });
      await stopBot(world);
      await world.restart();
      const restarted = await askOnDiscord({ world, channelId, text: 'what do you remember?' });
      const isFileBack = existsSync(filePath);
      return {
        checks: [
          { name: 'the turn after the deletion is answered', isMet: after.outcome.fate === 'answered' },
          { name: 'the file is written anew', isMet: isFileBack },
          {
            name: 'after a restart, history holds all three exchanges',
            isMet: holdsExactly(restarted.history, [before, after, restarted]),
          },
        ],
        observed: `after deletion ${after.outcome.fate}; file back: ${isFileBack ? 'yes' : 'no'}; after restart ${describeHistory(restarted.history)}`,
        ...turnsOf(before, after, restarted),
      };
    },
  },
  {
    id: 'store-sqlite-corrupt-at-start',
    area: 'store',
    fault: 'the SQLite file is garbage when parley starts',
    expected: 'a clear one-line error naming the file; exit code 1',
    expectedOutcome: 'clear error',
    isInShortRun: false,
    async run(context) {
      const world = await ownWorld(context);
      const filePath = sqlitePathOf(world);
      await stopBot(world);
      for (const suffix of ['-wal', '-shm']) rmSync(`${filePath}${suffix}`, { force: true });
      writeFileSync(filePath, randomBytes(64 * 1024));
      let failure: BotDidNotStart | undefined;
      try {
        await world.restart();
      } catch (error) {
        if (!(error instanceof BotDidNotStart)) throw error;
        failure = error;
      }
      const said = failure?.output.trim().split('\n').at(-1) ?? '';
      return {
        checks: [
          { name: 'parley does not start on it', isMet: failure !== undefined },
          { name: 'it exits with code 1', isMet: failure?.exitCode === 1 },
          { name: 'it names the file', isMet: said.includes(filePath) },
          { name: 'no stack trace', isMet: !/\n\s+at /.test(failure?.output ?? '') },
        ],
        observed:
          failure === undefined
            ? 'parley started on a garbage file'
            : `exit ${failure.exitCode}: "${quote({ text: said, maxLength: 120 })}"`,
        turns: [],
        duplicateReplies: 0,
      };
    },
  },
  {
    id: 'store-sqlite-corrupt-while-running',
    area: 'store',
    fault: 'the SQLite file overwritten with garbage while parley runs',
    expected: 'the person is told; no crash; nothing silently lost',
    expectedOutcome: 'clear error',
    isInShortRun: false,
    async run(context) {
      const world = await ownWorld(context);
      const channelId = world.newChannel();
      const before = await askOnDiscord({ world, channelId, text: 'first' });
      const filePath = sqlitePathOf(world);
      // Everything into the main file first (any connection may checkpoint), then garbage over it in
      // place: the bot's next read of a page meets the damage, as with a disk that went bad.
      checkpoint(filePath);
      overwriteWithGarbage(filePath);
      const during = await askOnDiscord({ world, channelId, text: 'second' });
      const isRunning = world.isBotRunning();
      return {
        checks: [
          { name: 'parley keeps running', isMet: isRunning },
          { name: 'the turn is answered or the person is told', isMet: during.outcome.fate !== 'lost' },
        ],
        observed: `turn after the damage: ${during.outcome.fate} "${quote({ text: during.shown.text, maxLength: 70 })}" · running: ${isRunning}`,
        ...turnsOf(before, during),
      };
    },
  },
  {
    id: 'store-sqlite-disk-full',
    area: 'store',
    fault: 'the disk under the SQLite file fills up (a 4 MB tmpfs, filled)',
    expected: 'the reply is shown with "could not save"; once space is back, turns are kept again',
    expectedOutcome: 'clear error',
    isInShortRun: true,
    async run(context) {
      const disk = mountScratchFileSystem({ sizeBytes: 4 * 1024 * 1024 });
      context.defer(() => disk.unmount());
      const world = await ownWorld(context, { storeUrl: `sqlite://${join(disk.path, 'parley.sqlite')}` });
      const channelId = world.newChannel();
      const before = await askOnDiscord({ world, channelId, text: 'before' });
      const filledBytes = disk.fill();
      const full = await askOnDiscord({ world, channelId, text: 'while full' });
      disk.free();
      const after = await askOnDiscord({ world, channelId, text: 'space is back' });
      const isToldNotSaved = /could not save/.test(full.shown.text);
      const history = await readHistory({
        storeUrl: world.storeUrl,
        conversationKey: world.conversationKey(channelId),
      });
      return {
        checks: [
          {
            name: 'the reply during the full disk is shown, with "could not save"',
            isMet: full.shown.text.includes(full.marker.replyText) && isToldNotSaved,
          },
          {
            name: 'once space is back the next turn is answered and kept',
            isMet: after.outcome.fate === 'answered',
          },
          {
            name: 'history holds the turns before and after, not the unsaved one',
            isMet: holdsExactly(history, [before, after]),
          },
        ],
        observed: `filled ${Math.round(filledBytes / 1024)} KB · while full: ${full.outcome.fate} ("${quote({ text: full.shown.text.split('\n').at(-1) ?? '', maxLength: 60 })}") · after: ${after.outcome.fate} · ${describeHistory(history)}`,
        ...turnsOf(before, full, after),
      };
    },
  },
  {
    id: 'store-sqlite-read-only',
    area: 'store',
    fault: 'the data folder is on a read-only file system at start',
    expected: 'a clear one-line error naming the path; exit code 1',
    expectedOutcome: 'clear error',
    isInShortRun: false,
    async run(context) {
      const disk = mountScratchFileSystem({ sizeBytes: 4 * 1024 * 1024 });
      context.defer(() => disk.unmount());
      mkdirSync(join(disk.path, 'data'));
      const filePath = join(disk.path, 'data', 'parley.sqlite');
      checkpoint(filePath);
      disk.makeReadOnly();
      let failure: BotDidNotStart | undefined;
      try {
        await ownWorld(context, { storeUrl: `sqlite://${filePath}` });
      } catch (error) {
        if (!(error instanceof BotDidNotStart)) throw error;
        failure = error;
      }
      const said = failure?.output.trim().split('\n').at(-1) ?? '';
      return {
        checks: [
          { name: 'parley does not start', isMet: failure !== undefined },
          { name: 'it exits with code 1', isMet: failure?.exitCode === 1 },
          {
            name: 'it names the path',
            isMet: said.includes(filePath) || said.includes(join(disk.path, 'data')),
          },
          { name: 'no stack trace', isMet: !/\n\s+at /.test(failure?.output ?? '') },
        ],
        observed:
          failure === undefined
            ? 'parley started on a read-only store'
            : `exit ${failure.exitCode}: "${quote({ text: said, maxLength: 120 })}"`,
        turns: [],
        duplicateReplies: 0,
      };
    },
  },
  {
    id: 'store-redis-down',
    area: 'store',
    fault: 'Redis goes down (connections reset, port refused), then comes back',
    expected: 'while down: "cannot reach my memory" within seconds, /readyz 503; after: answered',
    expectedOutcome: 'clear error',
    isInShortRun: false,
    async run(context) {
      const redisUrl = requireRedis(context);
      const link = await startRedisLink({ redisUrl });
      context.defer(() => link.close());
      const world = await ownWorld(context, {
        storeUrl: link.url,
        environment: { STORE_TIMEOUT_MS: '2000' },
      });
      const channelId = world.newChannel();
      const before = await askOnDiscord({ world, channelId, text: 'before' });
      await link.takeDown();
      const startedAtMs = Date.now();
      const down = await askOnDiscord({ world, channelId, text: 'while down' });
      const seconds = secondsUntilWarning(down, startedAtMs);
      const ready = await readiness(world);
      await link.bringUp();
      await delay(2_000);
      const after = await askOnDiscord({ world, channelId, text: 'and now', timeoutMs: 30_000 });
      return {
        checks: [
          {
            name: 'while down the person is told',
            isMet: /cannot reach my memory|could not save/.test(down.shown.text),
          },
          { name: 'told within 15 s', isMet: seconds <= 15 },
          { name: '/readyz says not ready', isMet: ready.status === 503 },
          { name: 'after Redis is back the next turn is answered', isMet: after.outcome.fate === 'answered' },
          {
            name: 'history holds the turns before and after',
            isMet: holdsExactly(after.history, [before, after]),
          },
        ],
        observed: `while down: "${quote({ text: down.shown.text, maxLength: 60 })}" in ${seconds} s · /readyz ${ready.status} · after: ${after.outcome.fate} · ${describeHistory(after.history)}`,
        ...turnsOf(before, down, after),
      };
    },
  },
  {
    id: 'store-redis-frozen',
    area: 'store',
    fault: 'Redis freezes (TCP up, no answers), then thaws',
    expected: 'while frozen: told within STORE_TIMEOUT_MS, /readyz 503; after: answered',
    expectedOutcome: 'clear error',
    isInShortRun: true,
    async run(context) {
      const redisUrl = requireRedis(context);
      const link = await startRedisLink({ redisUrl });
      context.defer(() => link.close());
      const world = await ownWorld(context, {
        storeUrl: link.url,
        environment: { STORE_TIMEOUT_MS: '2000' },
      });
      const channelId = world.newChannel();
      const before = await askOnDiscord({ world, channelId, text: 'before' });
      link.freeze();
      const startedAtMs = Date.now();
      const frozen = await askOnDiscord({ world, channelId, text: 'while frozen' });
      const seconds = secondsUntilWarning(frozen, startedAtMs);
      const command = await runSlashCommand({ world, channelId, name: 'model' });
      const ready = await readiness(world);
      link.thaw();
      const after = await askOnDiscord({ world, channelId, text: 'and now', timeoutMs: 30_000 });
      return {
        checks: [
          {
            name: 'while frozen the person is told',
            isMet: /cannot reach my memory|could not save/.test(frozen.shown.text),
          },
          { name: 'told within 15 s', isMet: seconds <= 15 },
          { name: 'a command while frozen gets an answer too', isMet: command.includes('⚠') },
          { name: '/readyz says not ready', isMet: ready.status === 503 },
          { name: 'after the thaw the next turn is answered', isMet: after.outcome.fate === 'answered' },
          {
            name: 'history holds the turns before and after',
            isMet: holdsExactly(after.history, [before, after]),
          },
        ],
        observed: `while frozen: "${quote({ text: frozen.shown.text, maxLength: 60 })}" in ${seconds} s, /model "${quote({ text: command, maxLength: 30 })}" · /readyz ${ready.status} · after: ${after.outcome.fate} · ${describeHistory(after.history)}`,
        ...turnsOf(before, frozen, after),
      };
    },
  },
  {
    id: 'store-image-growth',
    area: 'store',
    fault: 'the same 3.6 MB screenshot sent in three turns',
    expected: 'kept once: the second and third turns add a fraction of what the first did',
    expectedOutcome: 'survived',
    isInShortRun: false,
    async run(context) {
      const world = await ownWorld(context);
      const channelId = world.newChannel();
      const image = png('screenshot.png', largeNoisePng(3.6 * 1024 * 1024));
      const storedBefore = storedBytes(sqlitePathOf(world));
      const first = await askOnDiscord({ world, channelId, text: 'what is this?', attachments: [image] });
      const storedAfterFirst = storedBytes(sqlitePathOf(world));
      const second = await askOnDiscord({ world, channelId, text: 'and now?', attachments: [image] });
      const third = await askOnDiscord({ world, channelId, text: 'once more', attachments: [image] });
      const storedAfterThird = storedBytes(sqlitePathOf(world));
      const firstGrowth = storedAfterFirst - storedBefore;
      const laterGrowth = storedAfterThird - storedAfterFirst;
      const kib = (bytes: number) => `${Math.round(bytes / 1024)} KB`;
      return {
        checks: [
          {
            name: 'all three turns are answered',
            isMet: [first, second, third].every((turn) => turn.outcome.fate === 'answered'),
          },
          { name: 'the first turn keeps the image (the store grew)', isMet: firstGrowth > 100 * 1024 },
          { name: 'turns 2 and 3 add under a quarter of that', isMet: laterGrowth < firstGrowth / 4 },
        ],
        observed: `store content +${kib(firstGrowth)} after turn 1, +${kib(laterGrowth)} after turns 2 and 3`,
        ...turnsOf(first, second, third),
      };
    },
  },
];
