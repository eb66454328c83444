import type { HistoryFigures } from './history-benchmark.ts';
import type { ScenarioFigures } from './scenario-figures.ts';
import { type FiguresLookup, type TargetOutcome, verdictMark } from './targets.ts';

/** One row of a per-N table: a figure for the bot and the floor, their ratio, and its target there. */
interface Row {
  metric: string;
  bot: string;
  floor: string;
  ratio: string;
  target: string;
}

interface Metric {
  name: string;
  value: (figures: ScenarioFigures) => number | undefined;
  format: (value: number) => string;
  /** Shows the figure as text instead of `format(value)`; such rows get no ratio. */
  describe?: (figures: ScenarioFigures) => string;
  /** The target this figure has at this N, with its verdict, if any. */
  targetAt?: (
    conversationCount: number,
    outcomes: readonly TargetOutcome[],
    bot: ScenarioFigures | undefined,
  ) => string | undefined;
}

const decimals = (digits: number) => (value: number) => value.toFixed(digits);

function targetText(outcomes: readonly TargetOutcome[], id: string, text: string): string {
  const outcome = outcomes.find((candidate) => candidate.id === id);
  return `${text} ${verdictMark(outcome?.isMet)}`;
}

const metrics: Metric[] = [
  {
    name: 'added latency p50 (ms)',
    value: (figures) => figures.addedLatencyMs.p50,
    format: decimals(1),
    targetAt: (count, outcomes) =>
      count === 1 ? targetText(outcomes, 'added-latency-p50', '≤ 5') : undefined,
  },
  {
    name: 'added latency p99 (ms)',
    value: (figures) => figures.addedLatencyMs.p99,
    format: decimals(1),
    targetAt: (count, outcomes) =>
      count === 1 ? targetText(outcomes, 'added-latency-p99', '≤ 25') : undefined,
  },
  {
    name: 'mention → first text p50 (ms)',
    value: (figures) => figures.eventToFirstTextMs.p50,
    format: decimals(0),
    targetAt: (count, outcomes) =>
      count === 500 ? targetText(outcomes, 'first-text-floor', '≤ floor') : undefined,
  },
  {
    name: 'mention → first text p99 (ms)',
    value: (figures) => figures.eventToFirstTextMs.p99,
    format: decimals(0),
  },
  {
    name: 'first text p50 ÷ bound (rank ÷ 50/s)',
    value: (figures) => (figures.conversationCount >= 50 ? figures.eventToFirstTextOverBound : undefined),
    format: decimals(2),
    targetAt: (count, outcomes) =>
      count === 500 ? targetText(outcomes, 'first-text-bound', '≤ 1.1') : undefined,
  },
  {
    name: 'mention → gateway request p50 (ms)',
    value: (figures) => figures.mentionToGatewayRequestMs.p50,
    format: decimals(0),
    targetAt: (count, outcomes) =>
      count >= 200 ? targetText(outcomes, `gateway-request-${count}`, '≤ floor') : undefined,
  },
  {
    name: 'mention → gateway request p99 (ms)',
    value: (figures) => figures.mentionToGatewayRequestMs.p99,
    format: decimals(0),
  },
  {
    name: 'first text after stream end (%)',
    value: (figures) => figures.firstTextAfterStreamEnd * 100,
    format: decimals(0),
  },
  {
    name: 'final lag p50 (ms)',
    value: (figures) => figures.finalLagMs.p50,
    format: decimals(0),
  },
  {
    name: 'final lag p99 (ms)',
    value: (figures) => figures.finalLagMs.p99,
    format: decimals(0),
    targetAt: (count, outcomes) =>
      count === 500 ? targetText(outcomes, 'final-lag-floor', '≤ floor') : undefined,
  },
  { name: 'edits per reply', value: (figures) => figures.editsPerReply, format: decimals(1) },
  {
    name: 'edit budget used (%)',
    value: (figures) => (figures.editBudgetUsed === undefined ? undefined : figures.editBudgetUsed * 100),
    format: decimals(0),
    targetAt: (count, outcomes) => (count === 50 ? targetText(outcomes, 'edit-budget', '≥ 80') : undefined),
  },
  { name: 'REST calls per reply', value: (figures) => figures.restCallsPerReply, format: decimals(1) },
  {
    name: '429s, global',
    value: (figures) => figures.rateLimits.global,
    format: decimals(0),
  },
  {
    name: '429s, per route',
    value: (figures) => figures.rateLimits.route,
    format: decimals(0),
  },
  {
    name: '429s, all',
    value: (figures) => figures.rateLimits.total,
    format: decimals(0),
    targetAt: (_count, _outcomes, bot) =>
      `0 ${verdictMark(bot === undefined ? undefined : bot.rateLimits.total === 0)}`,
  },
  {
    name: 'exact final texts (%)',
    value: (figures) => (figures.exactReplies / figures.replyCount) * 100,
    format: decimals(0),
    targetAt: (_count, _outcomes, bot) =>
      `100 ${verdictMark(bot === undefined ? undefined : bot.exactReplies === bot.replyCount)}`,
  },
  {
    name: 'CPU s per 1,000 tokens',
    value: (figures) => figures.cpuSecondsPerThousandTokens,
    format: decimals(3),
    targetAt: (count, outcomes) =>
      count === 200
        ? targetText(outcomes, 'cpu', '≤ 1.0 × floor')
        : count === 500
          ? targetText(outcomes, 'cpu-500', '≤ 1.0 × floor')
          : undefined,
  },
  {
    name: 'busiest second, CPU cores',
    value: (figures) => figures.busiestSecondCpuCores,
    format: decimals(2),
  },
  { name: 'peak RSS (MiB)', value: (figures) => figures.peakRssMiB, format: decimals(0) },
  {
    name: 'RSS per conversation (KiB)',
    value: (figures) => figures.rssPerConversationKiB,
    format: decimals(0),
    targetAt: (count, outcomes) => (count === 200 ? targetText(outcomes, 'rss', '≤ floor') : undefined),
  },
  {
    name: 'load → last final text (s)',
    value: (figures) => (figures.loadDurationMs === undefined ? undefined : figures.loadDurationMs / 1000),
    format: decimals(1),
  },
  {
    name: 'check: gateway TTFT p50 / p99 (ms)',
    value: (figures) => figures.gatewayTimeToFirstTokenMs.p99,
    format: decimals(0),
    describe: (figures) =>
      `${figures.gatewayTimeToFirstTokenMs.p50?.toFixed(0) ?? '—'} / ${figures.gatewayTimeToFirstTokenMs.p99?.toFixed(0) ?? '—'}`,
  },
  {
    name: 'check: gateway stream p50 / p99 (s)',
    value: (figures) => figures.gatewayStreamDurationMs.p99,
    format: decimals(0),
    describe: (figures) =>
      `${((figures.gatewayStreamDurationMs.p50 ?? 0) / 1000).toFixed(2)} / ${((figures.gatewayStreamDurationMs.p99 ?? 0) / 1000).toFixed(2)}`,
  },
  {
    name: 'check: other processes / steal (cores)',
    value: (figures) => figures.otherLoad?.otherProcessesCores,
    format: decimals(2),
    describe: (figures) =>
      `${figures.otherLoad?.otherProcessesCores.toFixed(2) ?? '—'} / ${figures.otherLoad?.stealCores.toFixed(2) ?? '—'}`,
  },
  {
    name: 'check: fakes loop delay p99 / max (ms)',
    value: (figures) => figures.harnessLoopDelayMs.max,
    format: decimals(0),
    describe: (figures) =>
      `${figures.harnessLoopDelayMs.p99.toFixed(0)} / ${figures.harnessLoopDelayMs.max.toFixed(0)}`,
  },
];

function rowsFor(count: number, figures: FiguresLookup, outcomes: readonly TargetOutcome[]): Row[] {
  const bot = figures.bot(count);
  const floor = figures.floor(count);
  return metrics.map((metric) => {
    const botValue = bot === undefined ? undefined : metric.value(bot);
    const floorValue = floor === undefined ? undefined : metric.value(floor);
    const ratio =
      botValue === undefined || floorValue === undefined || floorValue === 0 || metric.describe !== undefined
        ? undefined
        : botValue / floorValue;
    const show = (figures: ScenarioFigures | undefined, value: number | undefined) => {
      if (figures === undefined || value === undefined) return '—';
      return metric.describe?.(figures) ?? metric.format(value);
    };
    return {
      metric: metric.name,
      bot: show(bot, botValue),
      floor: show(floor, floorValue),
      ratio: ratio === undefined ? '—' : `${ratio.toFixed(2)}×`,
      target: metric.targetAt?.(count, outcomes, bot) ?? '',
    };
  });
}

function headingOf(count: number, figures: FiguresLookup): string {
  const rounds = figures.bot(count)?.roundCount ?? figures.floor(count)?.roundCount ?? 1;
  const repetitions = figures.bot(count)?.repetitionCount ?? figures.floor(count)?.repetitionCount ?? 1;
  const timedOut = [figures.bot(count), figures.floor(count)]
    .filter((run) => run?.isTimedOut)
    .map((run) => run?.contender);
  return (
    `N=${count}: ${count} conversation${count === 1 ? '' : 's'} at once` +
    (rounds > 1 ? `, ${rounds} rounds one after another` : '') +
    (repetitions > 1 ? `, ${repetitions} fresh runs pooled` : '') +
    (timedOut.length > 0 ? ` (timed out: ${timedOut.join(', ')})` : '')
  );
}

const headers: Row = {
  metric: 'metric',
  bot: 'parley',
  floor: 'floor',
  ratio: 'parley ÷ floor',
  target: 'target',
};

/** The tables as plain text for the terminal. */
export function renderConsoleTables({
  conversationCounts,
  figures,
  outcomes,
  history,
}: {
  conversationCounts: readonly number[];
  figures: FiguresLookup;
  outcomes: readonly TargetOutcome[];
  history: HistoryFigures | undefined;
}): string {
  const lines: string[] = [];
  for (const count of conversationCounts) {
    const rows = [headers, ...rowsFor(count, figures, outcomes)];
    const widths = (Object.keys(headers) as (keyof Row)[]).map((key) =>
      Math.max(...rows.map((row) => [...row[key]].length)),
    );
    lines.push('', headingOf(count, figures));
    for (const row of rows) {
      const cells = (Object.keys(headers) as (keyof Row)[]).map((key, index) =>
        index === 0 ? padEnd(row[key], widths[index] ?? 0) : padStart(row[key], widths[index] ?? 0),
      );
      lines.push(`  ${cells.join('  ')}`.trimEnd());
    }
  }
  if (history !== undefined) lines.push('', historyLine(history));
  lines.push('', 'targets');
  for (const outcome of outcomes) {
    lines.push(`  ${verdictMark(outcome.isMet)} ${outcome.description}: ${outcome.measured}`);
  }
  return `${lines.join('\n')}\n`;
}

/** The same tables in Markdown, for docs/benchmarks.md. */
export function renderMarkdownTables({
  conversationCounts,
  figures,
  outcomes,
  history,
}: {
  conversationCounts: readonly number[];
  figures: FiguresLookup;
  outcomes: readonly TargetOutcome[];
  history: HistoryFigures | undefined;
}): string {
  const lines: string[] = ['| target | measured | met |', '|---|---|:-:|'];
  for (const outcome of outcomes) {
    lines.push(`| ${outcome.description} | ${outcome.measured} | ${verdictMark(outcome.isMet)} |`);
  }
  for (const count of conversationCounts) {
    lines.push('', `#### ${headingOf(count, figures)}`, '');
    lines.push('| metric | parley | floor | parley ÷ floor | target |', '|---|--:|--:|--:|:-:|');
    for (const row of rowsFor(count, figures, outcomes)) {
      lines.push(`| ${row.metric} | ${row.bot} | ${row.floor} | ${row.ratio} | ${row.target} |`);
    }
  }
  if (history !== undefined) lines.push('', `#### History`, '', historyLine(history));
  return lines.join('\n');
}

function historyLine(history: HistoryFigures): string {
  const format = (value: number | undefined) => (value === undefined ? '—' : value.toFixed(2));
  return (
    `history (${history.storeKind}, ${history.turnsInConversation} turns, ${history.storedKibibytes.toFixed(0)} KiB stored, ` +
    `${history.iterations} iterations): load + append one turn p50 ${format(history.loadAndAppendMs.p50)} ms, ` +
    `p99 ${format(history.loadAndAppendMs.p99)} ms (load p50 ${format(history.loadMs.p50)} ms, ` +
    `append p50 ${format(history.appendMs.p50)} ms); a cold load (a process that has not seen the ` +
    `conversation) p50 ${format(history.coldLoadMs?.p50)} ms, p99 ${format(history.coldLoadMs?.p99)} ms`
  );
}

function padEnd(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - [...text].length));
}

function padStart(text: string, width: number): string {
  return ' '.repeat(Math.max(0, width - [...text].length)) + text;
}
