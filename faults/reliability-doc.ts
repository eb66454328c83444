import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describeMachine, machineLine } from '../bench/machine.ts';
import { renderFindings, renderResultsTable, renderTotals, type TargetOutcome } from './report.ts';
import type { ScenarioResult } from './run-scenarios.ts';

const repositoryRoot = resolve(import.meta.dirname, '..');
/** Where the last full table lives. */
export const reliabilityDocPath = resolve(repositoryRoot, 'docs', 'reliability.md');

const startMarker = '<!-- faults:results:start (written by `npm run faults`; edit outside the markers) -->';
const endMarker = '<!-- faults:results:end -->';

/** The commit the run tested, and whether the product's files had changes on top of it. */
function describeRevision(): string {
  const git = (args: string[]) =>
    execFileSync('git', args, { cwd: repositoryRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    // The suite's own files and this page do not change what it tests.
    const changes = git(['status', '--porcelain', '--', '.', ':!faults', ':!docs/reliability.md']);
    return `${git(['rev-parse', '--short', 'HEAD']).trim()}${changes.trim() === '' ? '' : ' with local changes'}`;
  } catch {
    return 'unknown';
  }
}

/** The generated part of docs/reliability.md: when, where, the totals, the table, what failed. */
export function renderRunSection({
  results,
  targets,
  command,
  durationMs,
  redisUrl,
}: {
  results: readonly ScenarioResult[];
  targets: readonly TargetOutcome[];
  command: string;
  durationMs: number;
  redisUrl: string | undefined;
}): string {
  const findings = renderFindings(results);
  const skipped = results.filter((result) => result.verdict === 'skipped');
  return [
    '## The last full run',
    '',
    `- **When:** ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, commit ${describeRevision()}`,
    `- **Machine:** ${machineLine(describeMachine())}`,
    `- **Command:** \`${command}\`${redisUrl === undefined ? ' (REDIS_URL unset)' : ' with `REDIS_URL` set'}; ${results.length} scenarios in ${Math.round(durationMs / 1000)} s`,
    '',
    renderTotals(targets),
    '',
    renderResultsTable(results),
    '',
    findings === '' ? 'Every check held.' : `What did not hold:\n\n${findings}`,
    ...(skipped.length > 0
      ? [
          '',
          `Skipped: ${skipped.map((result) => `\`${result.id}\` (${result.observed.replace(/^skipped: /, '')})`).join('; ')}.`,
        ]
      : []),
  ].join('\n');
}

/** Replaces the generated section between its markers, keeping what a person wrote around it. */
export function updateReliabilityDoc(section: string): void {
  const block = `${startMarker}\n${section.trim()}\n${endMarker}`;
  const existing = existsSync(reliabilityDocPath)
    ? readFileSync(reliabilityDocPath, 'utf8')
    : '# Reliability\n';
  const startIndex = existing.indexOf(startMarker);
  const endIndex = existing.indexOf(endMarker);
  const updated =
    startIndex === -1 || endIndex < startIndex
      ? `${existing.trimEnd()}\n\n${block}\n`
      : `${existing.slice(0, startIndex)}${block}${existing.slice(endIndex + endMarker.length)}`;
  writeFileSync(reliabilityDocPath, updated);
}
