import { describeViolation, takeEveryViolation } from '../test/fakes/discord/specification-violations.ts';
import type { InternalTarget } from '../test/net/internal-target.ts';
import {
  type FaultArea,
  type Scenario,
  type ScenarioContext,
  type ScenarioObservation,
  ScenarioSkipped,
  type Verdict,
  verdictOf,
} from './scenario.ts';
import { findSecretLeaks, type SecretLeak } from './secret-scan.ts';
import type { ObservedText, World, WorldMark } from './world.ts';

/** One row of the table, with everything the totals need. */
export interface ScenarioResult {
  readonly id: string;
  readonly area: FaultArea;
  readonly fault: string;
  readonly expected: string;
  readonly observed: string;
  readonly verdict: Verdict;
  /** The checks that did not hold, by name. */
  readonly failedChecks: readonly string[];
  readonly turnsAsked: number;
  readonly turnsLost: number;
  readonly lostDetails: readonly string[];
  readonly duplicateReplies: number;
  readonly secretLeaks: readonly SecretLeak[];
  /** Connections the "internal" server got during the scenario. */
  readonly privateRequests: number;
  /** How much text (logs, platform calls and messages, model requests) the secret scan read. */
  readonly scannedBytes: number;
  readonly durationMs: number;
}

/** No scenario needs this long; one that takes it is stuck, and says so instead of hanging the run. */
const scenarioTimeoutMs = 240_000;

function withTimeout<Result>(work: Promise<Result>, timeoutMs: number): Promise<Result> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the scenario did not end within ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

interface SharedWorld {
  world: World;
  start: () => Promise<World>;
}

/**
 * Runs the scenarios one after another (they share the machine's two cores with the bots they
 * start), each with its own context; worlds shared within an area are closed when the area is done.
 */
export async function runScenarios({
  scenarios,
  internal,
  redisUrl,
  onResult,
}: {
  scenarios: readonly Scenario[];
  internal: InternalTarget;
  redisUrl: string | undefined;
  onResult: (result: ScenarioResult) => void;
}): Promise<ScenarioResult[]> {
  const results: ScenarioResult[] = [];
  const sharedWorlds = new Map<string, SharedWorld>();
  let currentArea: FaultArea | undefined;
  for (const scenario of scenarios) {
    if (scenario.area !== currentArea) {
      await closeShared(sharedWorlds);
      currentArea = scenario.area;
    }
    const result = await runOne({ scenario, internal, redisUrl, sharedWorlds });
    results.push(result);
    onResult(result);
  }
  await closeShared(sharedWorlds);
  return results;
}

async function closeShared(sharedWorlds: Map<string, SharedWorld>): Promise<void> {
  for (const { world } of sharedWorlds.values()) await world.close().catch(() => undefined);
  sharedWorlds.clear();
}

async function runOne({
  scenario,
  internal,
  redisUrl,
  sharedWorlds,
}: {
  scenario: Scenario;
  internal: InternalTarget;
  redisUrl: string | undefined;
  sharedWorlds: Map<string, SharedWorld>;
}): Promise<ScenarioResult> {
  const startedAtMs = Date.now();
  const connectionsBefore = internal.connectionCount;
  const requestsBefore = internal.requests.length;
  const cleanups: Array<() => Promise<void> | void> = [];
  const watched: Array<{ world: World; mark: WorldMark }> = [];
  const context: ScenarioContext = {
    internal,
    redisUrl,
    defer: (cleanup) => cleanups.push(cleanup),
    own(world) {
      watched.push({ world, mark: world.startMark });
      cleanups.push(() => world.close());
      return world;
    },
    async shared(key, start) {
      let entry = sharedWorlds.get(key);
      if (entry !== undefined && !entry.world.isBotRunning()) {
        await entry.world.close().catch(() => undefined);
        sharedWorlds.delete(key);
        entry = undefined;
      }
      if (entry === undefined) {
        const world = await start();
        entry = { world, start };
        sharedWorlds.set(key, entry);
        watched.push({ world, mark: world.startMark });
      } else if (!watched.some((watch) => watch.world === entry?.world)) {
        watched.push({ world: entry.world, mark: entry.world.mark() });
      }
      return entry.world as never;
    },
  };
  let observation: ScenarioObservation | undefined;
  let skipReason: string | undefined;
  let failure: string | undefined;
  try {
    observation = await withTimeout(scenario.run(context), scenarioTimeoutMs);
  } catch (error) {
    if (error instanceof ScenarioSkipped) skipReason = error.message;
    else failure = error instanceof Error ? (error.stack ?? error.message) : String(error);
  }
  const texts: ObservedText[] = watched.flatMap(({ world, mark }) => world.textSince(mark));
  for (const request of internal.requests.slice(requestsBefore)) {
    texts.push({
      source: `request to the internal server ${request.url}`,
      text: JSON.stringify(request.headers),
    });
  }
  // Every request the bot made to a fake Discord was checked against Discord's OpenAPI specification
  // (issue 27, "Proof"); one it forbids fails the scenario, as it fails a test in the suite.
  const specificationViolations = takeEveryViolation().flatMap(({ violations }) =>
    violations.map(describeViolation),
  );
  const secrets = [...new Set(watched.flatMap(({ world }) => world.secrets))];
  const secretLeaks = findSecretLeaks({ texts, secrets });
  const scannedBytes = texts.reduce((sum, entry) => sum + entry.text.length, 0);
  for (const cleanup of cleanups.reverse()) await Promise.resolve(cleanup()).catch(() => undefined);
  return resultOf({
    scenario,
    observation,
    skipReason,
    failure,
    secretLeaks,
    specificationViolations,
    privateRequests: internal.connectionCount - connectionsBefore,
    scannedBytes,
    durationMs: Date.now() - startedAtMs,
  });
}

function resultOf({
  scenario,
  observation,
  skipReason,
  failure,
  secretLeaks,
  specificationViolations,
  privateRequests,
  scannedBytes,
  durationMs,
}: {
  scenario: Scenario;
  observation: ScenarioObservation | undefined;
  skipReason: string | undefined;
  failure: string | undefined;
  secretLeaks: SecretLeak[];
  specificationViolations: string[];
  privateRequests: number;
  scannedBytes: number;
  durationMs: number;
}): ScenarioResult {
  const turns = observation?.turns ?? [];
  const lost = turns.filter((turn) => turn.fate === 'lost');
  const failedChecks = [
    ...(observation?.checks.filter((check) => !check.isMet).map((check) => check.name) ?? []),
    ...specificationViolations.map(
      (violation) => `a Discord request the OpenAPI specification forbids: ${violation}`,
    ),
  ];
  let verdict: Verdict =
    skipReason !== undefined
      ? 'skipped'
      : observation === undefined
        ? 'NOT survived'
        : verdictOf(scenario, observation);
  if (
    verdict !== 'skipped' &&
    (secretLeaks.length > 0 || privateRequests > 0 || specificationViolations.length > 0)
  )
    verdict = 'NOT survived';
  return {
    id: scenario.id,
    area: scenario.area,
    fault: scenario.fault,
    expected: scenario.expected,
    observed:
      skipReason !== undefined
        ? `skipped: ${skipReason}`
        : failure !== undefined
          ? `the scenario could not finish: ${failure.split('\n')[0] ?? failure}`
          : (observation?.observed ?? ''),
    verdict,
    failedChecks: failure !== undefined ? [failure] : failedChecks,
    turnsAsked: turns.length,
    turnsLost: lost.length,
    lostDetails: lost.map((turn) => turn.detail),
    duplicateReplies: observation?.duplicateReplies ?? 0,
    secretLeaks,
    privateRequests,
    scannedBytes,
    durationMs,
  };
}
