import type { FakeBehaviour } from '../../test/fakes/gateway/index.ts';
import { askOnDiscord, type DiscordTurn } from '../discord-turns.ts';
import { type DiscordWorld, startDiscordWorld } from '../discord-world.ts';
import type { Scenario, ScenarioContext, ScenarioObservation } from '../scenario.ts';
import { describeHistory } from '../store-observations.ts';
import { quote } from '../turn-judgement.ts';
import { newTurnMarker, requestsFor } from '../turn-markers.ts';

/**
 * Gateway faults, on one bot on the fake Discord: short timeouts so a silent gateway is given up on
 * in seconds, and a proxy in front of the gateway for what the fake does not do itself (a stream
 * that hangs, an event whose JSON is broken, a connection dropped before any answer).
 */
const gatewayEnvironment = {
  GATEWAY_FIRST_BYTE_TIMEOUT_MS: '3000',
  GATEWAY_TIMEOUT_MS: '6000',
  GATEWAY_MAX_RETRIES: '2',
};

export const gatewayWorld = (context: ScenarioContext): Promise<DiscordWorld> =>
  context.shared('gateway', () =>
    startDiscordWorld({ settings: { hasGatewayProxy: true, environment: gatewayEnvironment } }),
  );

/**
 * Internals a person must never see: stack frames, error class names, local addresses, keys. The
 * gateway's own address may be named (parley names the URL it tried when the base URL is wrong).
 */
function showsInternals({ text, allowedUrl }: { text: string; allowedUrl?: string }): boolean {
  const checked = allowedUrl === undefined ? text : text.replaceAll(allowedUrl, '');
  return /\bat \S+:\d+:\d+|\b[A-Z]\w*Error\b|127\.0\.0\.1|Bearer|ECONN/.test(checked);
}

/** After a fault, the same conversation must work again. */
export async function askAgain(world: DiscordWorld, channelId: string): Promise<DiscordTurn> {
  world.gateway.reset();
  world.gatewayProxy?.rewriteResponses(undefined);
  return askOnDiscord({ world, channelId, text: 'and now?' });
}

export function observationOf({
  turn,
  next,
  checks,
  extra = '',
}: {
  turn: DiscordTurn;
  next: DiscordTurn;
  checks: ScenarioObservation['checks'];
  extra?: string;
}): ScenarioObservation {
  return {
    checks: [
      ...checks,
      { name: 'the next message is answered in full', isMet: next.outcome.fate === 'answered' },
    ],
    observed: `${describeShown(turn)}${extra} · ${describeHistory(turn.history)} · next turn ${next.outcome.fate}`,
    turns: [turn.outcome, next.outcome],
    duplicateReplies: turn.duplicates + next.duplicates,
  };
}

/**
 * What the person saw: the warning when there is one, after how much of the reply it came; the
 * reply's start otherwise.
 */
function describeShown(turn: DiscordTurn): string {
  const { text } = turn.shown;
  const warningAt = text.indexOf('⚠');
  if (warningAt === -1) return `shown "${quote({ text, maxLength: 60 })}"`;
  const keptCharacters = text.slice(0, warningAt).replace(/[_\s]+$/, '').length;
  const kept =
    keptCharacters > 0 ? `${keptCharacters} of ${turn.marker.replyText.length} characters, then ` : '';
  return `shown ${kept}"${quote({ text: text.slice(warningAt).replace(/_$/, ''), maxLength: 90 })}"`;
}

/** The chat URL the bot calls, as it would name it. */
function gatewayUrlOf(world: DiscordWorld): string {
  const base = new URL(world.gateway.baseUrl);
  return `${world.gatewayProxy?.origin ?? base.origin}${base.pathname}/chat/completions`;
}

export function hasNoAssistantTurn(turn: DiscordTurn): boolean {
  return (turn.history ?? []).every(
    (stored) => stored.role !== 'assistant' || !stored.text.includes(turn.marker.head),
  );
}

/** A gateway that answers every try with an error: the person is told, briefly, and nothing is stored. */
export function refusedScenario({
  id,
  fault,
  told,
  toldAs,
  behaviours,
  isInShortRun = false,
}: {
  id: string;
  fault: string;
  told: RegExp;
  toldAs: string;
  behaviours: readonly FakeBehaviour[];
  isInShortRun?: boolean;
}): Scenario {
  return {
    id,
    area: 'gateway',
    fault,
    expected: `"${toldAs}"; nothing stored; next message answered`,
    expectedOutcome: 'clear error',
    isInShortRun,
    async run(context) {
      const world = await gatewayWorld(context);
      const channelId = world.newChannel();
      for (const behaviour of behaviours) world.gateway.enqueue(behaviour);
      const turn = await askOnDiscord({ world, channelId });
      const next = await askAgain(world, channelId);
      return observationOf({
        turn,
        next,
        checks: [
          { name: `the person is told "${toldAs}"`, isMet: told.test(turn.shown.text) },
          {
            name: 'it does not say "cut off" when nothing was shown',
            isMet: !/cut off/i.test(turn.shown.text),
          },
          {
            name: 'nothing internal is shown',
            isMet: !showsInternals({ text: turn.shown.text, allowedUrl: gatewayUrlOf(world) }),
          },
          { name: 'no assistant turn is stored', isMet: hasNoAssistantTurn(turn) },
        ],
      });
    },
  };
}

/** A gateway that fails once and then answers: the person gets the whole reply, once. */
export function passingFaultScenario({
  id,
  fault,
  behaviour,
  isInShortRun = false,
}: {
  id: string;
  fault: string;
  behaviour: FakeBehaviour;
  isInShortRun?: boolean;
}): Scenario {
  return {
    id,
    area: 'gateway',
    fault,
    expected: 'retried; the whole reply, once',
    expectedOutcome: 'survived',
    isInShortRun,
    async run(context) {
      const world = await gatewayWorld(context);
      const channelId = world.newChannel();
      world.gateway.enqueue(behaviour);
      const turn = await askOnDiscord({ world, channelId });
      const tries = requestsFor({ requests: world.gatewayRequests, marker: turn.marker }).length;
      const next = await askAgain(world, channelId);
      return observationOf({
        turn,
        next,
        extra: ` after ${tries} gateway requests`,
        checks: [
          { name: 'the whole reply is shown and stored', isMet: turn.outcome.fate === 'answered' },
          { name: 'the gateway was asked again', isMet: tries === 2 },
          { name: 'no warning is shown', isMet: !turn.shown.text.includes('⚠') },
        ],
      });
    },
  };
}

/** A stream that breaks after some text: the text stays, a note says it broke, history marks it. */
export function brokenStreamScenario({
  id,
  fault,
  inject,
  told,
  isInShortRun = false,
}: {
  id: string;
  fault: string;
  inject: (world: DiscordWorld) => void;
  told: RegExp;
  isInShortRun?: boolean;
}): Scenario {
  return {
    id,
    area: 'gateway',
    fault,
    expected: 'text so far kept, a note says it broke off; history marks it interrupted',
    expectedOutcome: 'clear error',
    isInShortRun,
    async run(context) {
      const world = await gatewayWorld(context);
      const channelId = world.newChannel();
      inject(world);
      const marker = newTurnMarker({ replyLength: 1200 });
      const turn = await askOnDiscord({ world, channelId, marker, timeoutMs: 25_000 });
      const assistant = (turn.history ?? []).find((stored) => stored.role === 'assistant');
      const next = await askAgain(world, channelId);
      return observationOf({
        turn,
        next,
        checks: [
          { name: 'the text shown so far stays', isMet: turn.shown.text.startsWith(marker.head) },
          { name: 'a note says the reply broke off', isMet: told.test(turn.shown.text) },
          {
            name: 'history holds what was shown, marked interrupted',
            isMet: assistant?.isInterrupted === true && marker.replyText.startsWith(assistant.text.trimEnd()),
          },
        ],
      });
    },
  };
}

/** Passes the response on until `count` SSE events have gone, then sends nothing more. */
export function stallAfterEvents(count: number) {
  return () => {
    let sent = 0;
    return (chunk: string): string | null => {
      if (sent >= count) return null;
      sent += (chunk.match(/\n\n/g) ?? []).length;
      return chunk;
    };
  };
}

/** Breaks the JSON of the `index`-th SSE event (1-based), as a corrupting middlebox would. */
export function breakJsonOfEvent(index: number) {
  return () => {
    let seen = 0;
    return (chunk: string): string =>
      chunk.replace(/data: \{/g, (match) => {
        seen += 1;
        return seen === index ? 'data: {"choices":[{"delta":' : match;
      });
  };
}
