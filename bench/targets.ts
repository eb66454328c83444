import type { HistoryFigures } from './history-benchmark.ts';
import type { ScenarioFigures } from './scenario-figures.ts';

/** One target of issue 6 and whether this run met it; `isMet` is undefined when the run did not measure it. */
export interface TargetOutcome {
  id: string;
  /** The target, as a reader says it. */
  description: string;
  /** What the run measured, formatted for the table. */
  measured: string;
  isMet: boolean | undefined;
}

/** The scenarios of a run, looked up by contender and N. */
export interface FiguresLookup {
  bot(conversationCount: number): ScenarioFigures | undefined;
  floor(conversationCount: number): ScenarioFigures | undefined;
  all: readonly ScenarioFigures[];
}

export function lookupFigures(all: readonly ScenarioFigures[]): FiguresLookup {
  const find = (contender: string, count: number) =>
    all.find((figures) => figures.contender === contender && figures.conversationCount === count);
  return { bot: (count) => find('bot', count), floor: (count) => find('floor', count), all };
}

const notMeasured = 'not measured';

function milliseconds(value: number | undefined): string {
  if (value === undefined) return '—';
  return `${value < 100 ? value.toFixed(1) : value.toFixed(0)} ms`;
}

/** Judges the bot's figures against every target of issue 6. */
export function evaluateTargets(
  figures: FiguresLookup,
  history: HistoryFigures | undefined,
): TargetOutcome[] {
  const outcomes: TargetOutcome[] = [];
  const single = figures.bot(1);
  outcomes.push({
    id: 'added-latency-p50',
    description: 'N=1: added latency p50 ≤ 5 ms',
    measured: single === undefined ? notMeasured : milliseconds(single.addedLatencyMs.p50),
    isMet: single?.addedLatencyMs.p50 === undefined ? undefined : single.addedLatencyMs.p50 <= 5,
  });
  outcomes.push({
    id: 'added-latency-p99',
    description: 'N=1: added latency p99 ≤ 25 ms',
    measured: single === undefined ? notMeasured : milliseconds(single.addedLatencyMs.p99),
    isMet: single?.addedLatencyMs.p99 === undefined ? undefined : single.addedLatencyMs.p99 <= 25,
  });

  const botRuns = figures.all.filter((run) => run.contender === 'bot');
  outcomes.push({
    id: 'no-429',
    description: 'every N: zero 429s',
    measured: botRuns.map((run) => `N=${run.conversationCount}: ${run.rateLimits.total}`).join(', '),
    isMet: botRuns.length === 0 ? undefined : botRuns.every((run) => run.rateLimits.total === 0),
  });
  outcomes.push({
    id: 'exact',
    description: 'every N: every final text exact',
    measured: botRuns
      .map((run) => `N=${run.conversationCount}: ${run.exactReplies}/${run.replyCount}`)
      .join(', '),
    isMet: botRuns.length === 0 ? undefined : botRuns.every((run) => run.exactReplies === run.replyCount),
  });

  const fifty = figures.bot(50);
  outcomes.push({
    id: 'edit-budget',
    description: 'N=50: ≥ 80% of the per-channel edit budget used',
    measured:
      fifty?.editBudgetUsed === undefined ? notMeasured : `${(fifty.editBudgetUsed * 100).toFixed(0)}%`,
    isMet: fifty?.editBudgetUsed === undefined ? undefined : fifty.editBudgetUsed >= 0.8,
  });

  const largest = figures.bot(500);
  const largestFloor = figures.floor(500);
  const overBound = largest?.eventToFirstTextOverBound;
  outcomes.push({
    id: 'first-text-bound',
    description: 'N=500: mention → first text p50 ≤ 1.1 × the physical bound',
    measured:
      overBound === undefined
        ? notMeasured
        : `${milliseconds(largest?.eventToFirstTextMs.p50)} = ${overBound.toFixed(2)} × ${milliseconds(largest?.physicalBoundMs.p50)}`,
    isMet: overBound === undefined ? undefined : overBound <= 1.1,
  });
  outcomes.push(
    compareWithFloor({
      id: 'first-text-floor',
      description: 'N=500: mention → first text p50 no worse than the floor',
      bot: largest?.eventToFirstTextMs.p50,
      floor: largestFloor?.eventToFirstTextMs.p50,
      format: milliseconds,
      allowedRatio: 1,
    }),
  );
  outcomes.push(
    compareWithFloor({
      id: 'final-lag-floor',
      description: 'N=500: final lag p99 no worse than the floor',
      bot: largest?.finalLagMs.p99,
      floor: largestFloor?.finalLagMs.p99,
      format: milliseconds,
      allowedRatio: 1,
    }),
  );

  const twoHundred = figures.bot(200);
  const twoHundredFloor = figures.floor(200);
  const cpuFormat = (value: number | undefined) => (value === undefined ? '—' : `${value.toFixed(3)} s`);
  for (const [count, bot, floor] of [
    [200, twoHundred, twoHundredFloor],
    [500, largest, largestFloor],
  ] as const) {
    outcomes.push(
      compareWithFloor({
        id: count === 200 ? 'cpu' : `cpu-${count}`,
        description: `N=${count}: CPU per 1,000 tokens ≤ 1.0 × the floor (issue 39; issue 24 asked 1.1 ×)`,
        bot: bot?.cpuSecondsPerThousandTokens,
        floor: floor?.cpuSecondsPerThousandTokens,
        format: cpuFormat,
        allowedRatio: 1,
      }),
    );
    outcomes.push(
      compareWithFloor({
        id: `gateway-request-${count}`,
        description: `N=${count}: mention → gateway request p50 no later than the floor's (issue 39${count === 200 ? ' asks it at N=500' : ''})`,
        bot: bot?.mentionToGatewayRequestMs.p50,
        floor: floor?.mentionToGatewayRequestMs.p50,
        format: milliseconds,
        allowedRatio: 1,
      }),
    );
  }
  outcomes.push(
    compareWithFloor({
      id: 'rss',
      description: 'N=200: RSS per conversation no worse than the floor',
      bot: twoHundred?.rssPerConversationKiB,
      floor: twoHundredFloor?.rssPerConversationKiB,
      format: (value) => (value === undefined ? '—' : `${value.toFixed(0)} KiB`),
      allowedRatio: 1,
    }),
  );
  outcomes.push({
    id: 'history',
    description: 'history load + append p50 ≤ 2 ms at 200 turns',
    measured: history === undefined ? notMeasured : milliseconds(history.loadAndAppendMs.p50),
    isMet: history?.loadAndAppendMs.p50 === undefined ? undefined : history.loadAndAppendMs.p50 <= 2,
  });
  return outcomes;
}

function compareWithFloor({
  id,
  description,
  bot,
  floor,
  format,
  allowedRatio,
}: {
  id: string;
  description: string;
  bot: number | undefined;
  floor: number | undefined;
  format: (value: number | undefined) => string;
  allowedRatio: number;
}): TargetOutcome {
  if (bot === undefined || floor === undefined)
    return { id, description, measured: notMeasured, isMet: undefined };
  const ratio = floor === 0 ? undefined : bot / floor;
  return {
    id,
    description,
    measured: `${format(bot)} vs floor ${format(floor)}${ratio === undefined ? '' : ` (${ratio.toFixed(2)}×)`}`,
    // A floor of zero (or less, for RSS noise) can only be matched, not beaten by a ratio.
    isMet: floor <= 0 ? bot <= floor : bot <= floor * allowedRatio,
  };
}

/** ✓, ✗ or – (not measured). */
export function verdictMark(isMet: boolean | undefined): string {
  return isMet === undefined ? '–' : isMet ? '✓' : '✗';
}
