import { setTimeout as delay } from 'node:timers/promises';
import { askOnDiscord, observeDiscordTurn, sendDiscordMention } from '../discord-turns.ts';
import { startRedisLink } from '../redis-link.ts';
import type { Scenario } from '../scenario.ts';
import { describeHistory } from '../store-observations.ts';
import { quote } from '../turn-judgement.ts';
import { ownWorld, requireRedis } from './store-kinds.ts';

/**
 * Redis freezes (as under SIGSTOP: connections up, no answers) at the moment a turn makes one given
 * call of the reply path. Every such call is bounded by STORE_TIMEOUT_MS, so the person hears within
 * that bound (the reply, or "I cannot reach my memory"), and the turn is answered or told why: never
 * dropped, during the freeze or after it.
 */
const storeTimeoutMs = 2_000;
/** Longer than any bound, as a stalled Redis would be; the issue's was 33 s. */
const freezeMs = 12_000;
/** What the person may wait for the first sign of life beyond the store's bound: the platform's own time. */
const slackMs = 1_500;

interface FrozenCall {
  readonly id: string;
  /** The call, as the table says it. */
  readonly call: string;
  /** What the call carries on the wire (a key of it). */
  readonly pattern: RegExp;
  readonly environment?: Record<string, string>;
  /**
   * CI's short form keeps one (each case takes about 35 s): Discord's shared request window, where a
   * turn was once dropped and later cost a second whole bound; store-redis-frozen covers a freeze in
   * general, test/conversation/engine-lock-unavailable.test.ts the lock. The rest run in the full suite.
   */
  readonly isInShortRun: boolean;
}

const frozenCalls: FrozenCall[] = [
  {
    id: 'dedupe',
    call: "the event's dedupe (SET NX)",
    pattern: /coordination:event:sighting:discord:message:/,
    isInShortRun: false,
  },
  {
    id: 'lock',
    call: "the conversation lock's queue",
    pattern: /coordination:conversation:queue:/,
    isInShortRun: false,
  },
  {
    id: 'history',
    call: 'reading the history',
    pattern: /history:+discord:/,
    isInShortRun: false,
  },
  {
    id: 'budgets',
    call: 'the budget hold',
    pattern: /parley:spend:(?!rate)/,
    environment: { BUDGET_USER_DAILY: '1000' },
    isInShortRun: false,
  },
  {
    id: 'request-rate',
    call: "the person's request rate",
    pattern: /parley:spend:rate/,
    environment: { RATE_USER_PER_MINUTE: '100' },
    isInShortRun: false,
  },
  {
    id: 'rest-window',
    call: "Discord's shared request window",
    pattern: /coordination:discord-rest/,
    isInShortRun: true,
  },
];

function frozenCallScenario(frozen: FrozenCall): Scenario {
  return {
    id: `store-redis-frozen-at-${frozen.id}`,
    area: 'store',
    fault: `Redis freezes for ${freezeMs / 1000} s at ${frozen.call} of a turn`,
    expected: `heard within STORE_TIMEOUT_MS (${storeTimeoutMs / 1000} s): the reply or "cannot reach my memory"; never dropped; next answered`,
    expectedOutcome: 'clear error',
    isInShortRun: frozen.isInShortRun,
    async run(context) {
      const redisUrl = requireRedis(context);
      const link = await startRedisLink({ redisUrl });
      context.defer(() => link.close());
      const world = await ownWorld(context, {
        storeUrl: link.url,
        environment: { STORE_TIMEOUT_MS: String(storeTimeoutMs), ...frozen.environment },
      });
      const channelId = world.newChannel();
      const before = await askOnDiscord({ world, channelId, text: 'before' });
      const froze = link.freezeAt({ pattern: frozen.pattern, forMs: freezeMs, withinMs: 15_000 });
      const sentAtMs = Date.now();
      const asked = sendDiscordMention({ world, channelId, text: 'during' });
      const frozeAtMs = await froze;
      const during = await observeDiscordTurn({
        world,
        channelId,
        questionId: asked.questionId,
        marker: asked.marker,
        timeoutMs: freezeMs + 20_000,
      });
      const firstShownAtMs = Math.min(
        during.shown.firstTextAtMs ?? Number.POSITIVE_INFINITY,
        during.shown.firstWarningAtMs ?? Number.POSITIVE_INFINITY,
      );
      const heardAfterS = Math.round((firstShownAtMs - sentAtMs) / 100) / 10;
      if (frozeAtMs !== undefined) await delay(Math.max(0, frozeAtMs + freezeMs + 500 - Date.now()));
      const after = await askOnDiscord({ world, channelId, text: 'and now', timeoutMs: 30_000 });
      return {
        checks: [
          { name: `Redis froze at ${frozen.call}`, isMet: frozeAtMs !== undefined },
          {
            name: `the person heard within STORE_TIMEOUT_MS (+${slackMs / 1000} s for Discord)`,
            isMet: heardAfterS * 1000 <= storeTimeoutMs + slackMs,
          },
          { name: 'the turn was answered or told why', isMet: during.outcome.fate !== 'lost' },
          { name: 'after the thaw the next turn is answered', isMet: after.outcome.fate === 'answered' },
          { name: 'nothing shown twice', isMet: during.duplicates + after.duplicates === 0 },
        ],
        observed: `${frozeAtMs === undefined ? 'never reached that call' : 'froze'} · heard after ${Number.isFinite(heardAfterS) ? `${heardAfterS} s` : 'never'}: ${during.outcome.fate} "${quote({ text: during.shown.text, maxLength: 50 })}" · after: ${after.outcome.fate} · ${describeHistory(after.history)}`,
        turns: [before.outcome, during.outcome, after.outcome],
        duplicateReplies: before.duplicates + during.duplicates + after.duplicates,
      };
    },
  };
}

export const frozenCallScenarios: Scenario[] = frozenCalls.map(frozenCallScenario);
