import { type InternalTarget, startInternalTarget } from '../test/net/internal-target.ts';
import { allScenarios } from './all-scenarios.ts';
import { reliabilityDocPath, renderRunSection, updateReliabilityDoc } from './reliability-doc.ts';
import { renderFindings, renderResultsTable, renderTotals, targetsOf, totalsOf } from './report.ts';
import { parseFaultRunOptions } from './run-options.ts';
import { runScenarios, type ScenarioResult } from './run-scenarios.ts';
import { keepWorldFolders } from './world.ts';

const options = parseFaultRunOptions(process.argv.slice(2));
if (options.isKeepingLogs) keepWorldFolders();
const selected = allScenarios.filter(
  (scenario) =>
    (options.only.length === 0 ||
      options.only.includes(scenario.id) ||
      options.only.includes(scenario.area)) &&
    (!options.isShort || scenario.isInShortRun || options.only.length > 0),
);
if (selected.length === 0) {
  process.stderr.write(`no scenario matches ${options.only.join(', ')}\n`);
  process.exit(2);
}
const write = (text: string) => process.stdout.write(text);
const redisUrl = process.env.REDIS_URL || undefined;
write(`parley faults: ${selected.length} scenarios${options.isShort ? ' (short form)' : ''}\n`);
if (redisUrl === undefined) write('REDIS_URL is not set: the Redis scenarios are skipped\n');

const startedAtMs = Date.now();
const internal = await startInternalTarget();
await checkThatTheInternalServerCounts(internal);
let results: ScenarioResult[];
try {
  results = await runScenarios({
    scenarios: selected,
    internal,
    redisUrl,
    onResult: (result) =>
      write(
        `${result.verdict.padEnd(13)} ${result.id.padEnd(32)} ${(result.durationMs / 1000).toFixed(1)} s  ${result.observed}\n`,
      ),
  });
} finally {
  await internal.close();
}
const totals = totalsOf(results);
const targets = targetsOf(totals);
const findings = renderFindings(results);
write(`\n${renderResultsTable(results)}\n\n${renderTotals(targets)}\n`);
if (findings !== '') write(`\n${findings}\n`);
const durationMs = Date.now() - startedAtMs;
write(`\n${(durationMs / 1000).toFixed(0)} s\n`);
if (options.isWritingDoc) {
  const command = `npm run faults${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;
  updateReliabilityDoc(renderRunSection({ results, targets, command, durationMs, redisUrl }));
  write(`wrote the table to ${reliabilityDocPath}\n`);
}
process.exitCode = targets.every((target) => target.isMet) ? 0 : 1;

/** The count of private requests means something only if the internal server does count: one request of our own. */
async function checkThatTheInternalServerCounts(target: InternalTarget): Promise<void> {
  const before = target.connectionCount;
  await fetch(`${target.origin}/self-check`).then((response) => response.arrayBuffer());
  if (target.connectionCount !== before + 1)
    throw new Error('the internal server does not count connections');
}
