import { setTimeout as delay } from 'node:timers/promises';
import { askOnDiscord, observeDiscordTurn, sendDiscordMention } from '../discord-turns.ts';
import { startRedisServer } from '../redis-server.ts';
import type { Scenario } from '../scenario.ts';
import { describeHistory } from '../store-observations.ts';
import { quote } from '../turn-judgement.ts';
import { newTurnMarker } from '../turn-markers.ts';
import { ownWorld, readiness } from './store-kinds.ts';

/**
 * Redis is stopped and started again from its dump, then frozen with SIGSTOP (issue 34, item 10):
 * the bot's client has reconnected once before the freeze, unlike store-redis-frozen's fresh one.
 * The first turn during the freeze got nothing for 30 s and was never answered after the thaw.
 * Redis here is a redis-server of the scenario's own: the shared one is never stopped or frozen.
 */
const freezeMs = 33_000;
/** STORE_TIMEOUT_MS, as the other frozen-Redis scenarios have it. */
const storeTimeoutMs = 2_000;
/** What the person may wait for the first sign of life beyond the store's bound: Discord's own time. */
const slackMs = 1_500;

export const redisRestartScenario: Scenario = {
  id: 'store-redis-restart-then-frozen',
  area: 'store',
  fault: `Redis stops, starts again from its dump, then freezes (SIGSTOP) for ${freezeMs / 1000} s`,
  expected: `heard within STORE_TIMEOUT_MS (${storeTimeoutMs / 1000} s): the reply or "cannot reach my memory"; never dropped; next answered`,
  expectedOutcome: 'clear error',
  // About 50 s, most of it the freeze: the full run only; store-redis-frozen stands for freezes in CI.
  isInShortRun: false,
  async run(context) {
    const redis = await startRedisServer();
    context.defer(() => redis.close());
    const world = await ownWorld(context, {
      storeUrl: redis.url,
      environment: { STORE_TIMEOUT_MS: String(storeTimeoutMs) },
    });
    const channelId = world.newChannel();
    const before = await askOnDiscord({ world, channelId, text: 'before' });

    await redis.stop();
    await redis.start();
    const isReadyAgain = await readyWithin(world, 30_000);

    redis.freeze();
    const frozeAtMs = Date.now();
    const thawed = delay(freezeMs).then(() => redis.thaw());
    context.defer(() => redis.thaw());
    const asked = sendDiscordMention({ world, channelId, text: 'during' });
    const during = await observeDiscordTurn({
      world,
      channelId,
      questionId: asked.questionId,
      marker: asked.marker,
      timeoutMs: freezeMs + 30_000,
    });
    const firstShownAtMs = Math.min(
      during.shown.firstTextAtMs ?? Number.POSITIVE_INFINITY,
      during.shown.firstWarningAtMs ?? Number.POSITIVE_INFINITY,
    );
    const heardAfterS = Math.round((firstShownAtMs - frozeAtMs) / 100) / 10;
    await thawed;
    await delay(500);
    const after = await askOnDiscord({ world, channelId, text: 'and now', timeoutMs: 30_000 });
    return {
      checks: [
        { name: 'after the restart /readyz was ready again', isMet: isReadyAgain },
        {
          name: `the person heard within STORE_TIMEOUT_MS (+${slackMs / 1000} s for Discord)`,
          isMet: heardAfterS * 1000 <= storeTimeoutMs + slackMs,
        },
        { name: 'the turn was answered or told why', isMet: during.outcome.fate !== 'lost' },
        { name: 'after the thaw the next turn is answered', isMet: after.outcome.fate === 'answered' },
        { name: 'nothing shown twice', isMet: during.duplicates + after.duplicates === 0 },
      ],
      observed: `ready after restart: ${isReadyAgain ? 'yes' : 'no'} · heard after ${Number.isFinite(heardAfterS) ? `${heardAfterS} s` : 'never'}: ${during.outcome.fate} "${quote({ text: during.shown.text, maxLength: 50 })}" · after: ${after.outcome.fate} · ${describeHistory(after.history)}`,
      turns: [before.outcome, during.outcome, after.outcome],
      duplicateReplies: before.duplicates + during.duplicates + after.duplicates,
    };
  },
};

async function readyWithin(world: Parameters<typeof readiness>[0], timeoutMs: number): Promise<boolean> {
  const deadlineMs = Date.now() + timeoutMs;
  while (Date.now() < deadlineMs) {
    if ((await readiness(world)).status === 200) return true;
    await delay(250);
  }
  return false;
}

/** How soon the next turn after a restore must be heard: a reply's usual time, far below LOCK_TTL_MS (30 s). */
const afterRestoreTargetMs = 10_000;

/**
 * Redis crashes and starts again from a dump saved while a reply was streaming (issue 34, item 10):
 * the dump holds that reply's conversation lock, whose task is long over. The next turn of the
 * conversation waited out the lock's 30 s in silence; the process that held it knows its task is
 * over and frees it at once.
 */
export const redisRestoredMidReplyScenario: Scenario = {
  id: 'store-redis-restored-mid-reply',
  area: 'store',
  fault: 'Redis crashes (SIGKILL) and starts again from a dump saved while a reply streamed',
  expected: `the next turn there is answered within ${afterRestoreTargetMs / 1000} s, not after the lock's 30 s`,
  expectedOutcome: 'survived',
  // About 15 s; the lock's own test (test/state/redis-keyed-lock.test.ts) runs in CI's unit tests.
  isInShortRun: false,
  async run(context) {
    const redis = await startRedisServer();
    context.defer(() => redis.close());
    const world = await ownWorld(context, {
      storeUrl: redis.url,
      environment: { STORE_TIMEOUT_MS: String(storeTimeoutMs) },
    });
    const channelId = world.newChannel();
    // About 2.4 s of streaming: the dump is saved in the middle of it, lock held.
    world.gateway.enqueue({ chunkSize: 30, delayBetweenChunksMs: 60 });
    const streaming = sendDiscordMention({
      world,
      channelId,
      text: 'before',
      marker: newTurnMarker({ replyLength: 1_200 }),
    });
    await delay(1_200);
    await redis.save();
    const before = await observeDiscordTurn({ world, channelId, ...streaming, timeoutMs: 30_000 });
    await redis.kill();
    await redis.start();
    const isReadyAgain = await readyWithin(world, 30_000);
    const sentAtMs = Date.now();
    const next = await askOnDiscord({ world, channelId, text: 'after the restore', timeoutMs: 60_000 });
    const heardAfterMs =
      Math.min(
        next.shown.firstTextAtMs ?? Number.POSITIVE_INFINITY,
        next.shown.firstWarningAtMs ?? Number.POSITIVE_INFINITY,
      ) - sentAtMs;
    const heardAfterS = Math.round(heardAfterMs / 100) / 10;
    return {
      checks: [
        { name: 'the reply before the crash was shown', isMet: before.shown.text.length > 0 },
        { name: 'after the restart /readyz was ready again', isMet: isReadyAgain },
        { name: 'the next turn is answered', isMet: next.outcome.fate === 'answered' },
        {
          name: `heard within ${afterRestoreTargetMs / 1000} s`,
          isMet: heardAfterMs <= afterRestoreTargetMs,
        },
      ],
      observed: `before the crash: ${before.outcome.fate} · ready after restart: ${isReadyAgain ? 'yes' : 'no'} · next turn heard after ${Number.isFinite(heardAfterS) ? `${heardAfterS} s` : 'never'}: ${next.outcome.fate} · ${describeHistory(next.history)}`,
      // The turn before the crash is the crash's: a dump taken mid-reply cannot hold its end.
      turns: [next.outcome],
      duplicateReplies: next.duplicates,
    };
  },
};
