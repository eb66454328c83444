import type { InternalTarget } from '../test/net/internal-target.ts';
import type { World } from './world.ts';

/** The areas a fault belongs to; each has its own file under `faults/scenarios/`. */
export type FaultArea = 'gateway' | 'discord' | 'slack' | 'order' | 'store' | 'process' | 'inputs';

/**
 * What surviving a fault means for this scenario: `survived` when the person gets the full answer
 * anyway, `clear error` when the best possible outcome is a short message saying what went wrong.
 */
export type ExpectedOutcome = 'survived' | 'clear error';

/** The table's verdict: the expected outcome when every check held, else `NOT survived`. */
export type Verdict = ExpectedOutcome | 'NOT survived' | 'skipped';

/** One thing a scenario looked at, and whether it was as expected. */
export interface Check {
  /** What should hold, in a few words: "the final text is exact". */
  readonly name: string;
  readonly isMet: boolean;
}

/**
 * What happened to one thing a person asked: `answered` (the whole reply is shown and in history),
 * `told` (a clear message said why not, and history holds nothing half-done), or `lost` (silence, a
 * reply left dangling, or a reply shown that history lost without a word).
 */
export type TurnFate = 'answered' | 'told' | 'lost';

export interface TurnOutcome {
  readonly fate: TurnFate;
  /** Why, for the report: what the person saw and what history holds. */
  readonly detail: string;
}

/** Everything a scenario observed, from which its verdict and the totals are computed. */
export interface ScenarioObservation {
  readonly checks: readonly Check[];
  /** A short account of what the fake platform, the store and the log showed. */
  readonly observed: string;
  readonly turns: readonly TurnOutcome[];
  /** Replies shown more than once for one thing asked. */
  readonly duplicateReplies: number;
}

/** What a scenario gets from the runner. */
export interface ScenarioContext {
  /** The "internal" server on loopback: nothing may ever connect to it. */
  readonly internal: InternalTarget;
  /** Redis for the store faults, from REDIS_URL; `undefined` when it is not set. */
  readonly redisUrl: string | undefined;
  /** Registers what must be undone after the scenario, whatever happens (proxies, mounts). */
  defer(cleanup: () => Promise<void> | void): void;
  /** A world this scenario started: closed after it, and everything it saw is scanned for secrets. */
  own<Owned extends World>(world: Owned): Owned;
  /**
   * A world the scenarios of one area share (one bot process for many small faults), started on
   * first use, started again when its bot has died, closed when the area is done.
   */
  shared<Shared extends World>(key: string, start: () => Promise<Shared>): Promise<Shared>;
}

/** Tells the runner that a scenario cannot run on this machine, and why. */
export class ScenarioSkipped extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'ScenarioSkipped';
  }
}

/** One fault: how to inject it and what to look at afterwards. */
export interface Scenario {
  /** Stable id, e.g. `gateway-402`; `--only` takes it. */
  readonly id: string;
  readonly area: FaultArea;
  /** The fault, as the table's first column says it. */
  readonly fault: string;
  /** What should happen, as the table's second column says it. */
  readonly expected: string;
  readonly expectedOutcome: ExpectedOutcome;
  /** Whether `--short` (CI) runs it. */
  readonly isInShortRun: boolean;
  run(context: ScenarioContext): Promise<ScenarioObservation>;
}

/** The verdict follows from the checks alone. */
export function verdictOf(scenario: Scenario, observation: ScenarioObservation): Verdict {
  return observation.checks.every((check) => check.isMet) ? scenario.expectedOutcome : 'NOT survived';
}
