import type { ScenarioResult } from './run-scenarios.ts';

/** The run's totals, each with the target it is held to. */
export interface FaultTotals {
  readonly scenarioCount: number;
  readonly survivedCount: number;
  readonly skippedCount: number;
  readonly turnsAsked: number;
  readonly turnsLost: number;
  readonly duplicateReplies: number;
  readonly secretsLeaked: number;
  readonly privateRequests: number;
  readonly scannedBytes: number;
}

/** One target of issue 10, met or not. */
export interface TargetOutcome {
  readonly name: string;
  readonly value: string;
  readonly isMet: boolean;
}

export function totalsOf(results: readonly ScenarioResult[]): FaultTotals {
  const sum = (pick: (result: ScenarioResult) => number) =>
    results.reduce((total, result) => total + pick(result), 0);
  return {
    scenarioCount: results.length,
    survivedCount: results.filter(
      (result) => result.verdict === 'survived' || result.verdict === 'clear error',
    ).length,
    skippedCount: results.filter((result) => result.verdict === 'skipped').length,
    turnsAsked: sum((result) => result.turnsAsked),
    turnsLost: sum((result) => result.turnsLost),
    duplicateReplies: sum((result) => result.duplicateReplies),
    secretsLeaked: sum((result) => result.secretLeaks.length),
    privateRequests: sum((result) => result.privateRequests),
    scannedBytes: sum((result) => result.scannedBytes),
  };
}

/** Every fault survived or a clear error; 0 lost, 0 duplicated, 0 leaked, 0 private requests. */
export function targetsOf(totals: FaultTotals): TargetOutcome[] {
  const ran = totals.scenarioCount - totals.skippedCount;
  return [
    {
      name: 'faults survived (or a clear error)',
      value: `${totals.survivedCount} of ${ran}${totals.skippedCount > 0 ? ` (${totals.skippedCount} skipped)` : ''}`,
      isMet: totals.survivedCount === ran,
    },
    {
      name: 'turns lost',
      value: `${totals.turnsLost} of ${totals.turnsAsked}`,
      isMet: totals.turnsLost === 0,
    },
    {
      name: 'duplicate replies',
      value: String(totals.duplicateReplies),
      isMet: totals.duplicateReplies === 0,
    },
    {
      name: 'secrets leaked',
      value: `${totals.secretsLeaked} (in ${(totals.scannedBytes / 1024 / 1024).toFixed(1)} MB of logs, platform calls, messages and model requests)`,
      isMet: totals.secretsLeaked === 0,
    },
    {
      name: 'requests to private addresses',
      value: String(totals.privateRequests),
      isMet: totals.privateRequests === 0,
    },
  ];
}

/** The table as Markdown: fault, expected, observed, verdict. */
export function renderResultsTable(results: readonly ScenarioResult[]): string {
  const rows = results.map((result) =>
    [`\`${result.id}\` ${result.fault}`, result.expected, observedCell(result), verdictCell(result)]
      .map(escapeCell)
      .join(' | '),
  );
  return [
    '| fault | expected | observed | verdict |',
    '|---|---|---|---|',
    ...rows.map((row) => `| ${row} |`),
  ].join('\n');
}

export function renderTotals(targets: readonly TargetOutcome[]): string {
  return [
    '| total | value | target met |',
    '|---|---|---|',
    ...targets.map((target) => `| ${target.name} | ${target.value} | ${target.isMet ? 'yes' : '**no**'} |`),
  ].join('\n');
}

/** What went wrong in the scenarios that did not survive, for the reader who must fix it. */
export function renderFindings(results: readonly ScenarioResult[]): string {
  const lines: string[] = [];
  for (const result of results) {
    const problems = [
      ...result.failedChecks.map((name) => `check failed: ${name}`),
      ...result.lostDetails.map((detail) => `turn lost: ${detail}`),
      ...(result.duplicateReplies > 0 ? [`${result.duplicateReplies} duplicate replies`] : []),
      ...result.secretLeaks.map((leak) => `secret ${leak.secretPrefix} in ${leak.source}`),
      ...(result.privateRequests > 0 ? [`${result.privateRequests} connections to the internal server`] : []),
    ];
    if (problems.length === 0) continue;
    lines.push(`- \`${result.id}\`: ${problems.map((problem) => problem.split('\n')[0]).join('; ')}`);
  }
  return lines.join('\n');
}

function observedCell(result: ScenarioResult): string {
  const extras = [
    result.turnsLost > 0 ? `${result.turnsLost} turn(s) lost` : '',
    result.duplicateReplies > 0 ? `${result.duplicateReplies} duplicate(s)` : '',
    result.secretLeaks.length > 0 ? `${result.secretLeaks.length} secret leak(s)` : '',
    result.privateRequests > 0 ? `${result.privateRequests} private request(s)` : '',
  ].filter(Boolean);
  return [result.observed, ...extras].join(' · ');
}

function verdictCell(result: ScenarioResult): string {
  return result.verdict === 'NOT survived' ? '**NOT survived**' : result.verdict;
}

function escapeCell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}
