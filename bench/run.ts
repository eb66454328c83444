import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseBenchOptions } from './bench-options.ts';
import { updateBenchmarksDoc } from './benchmarks-doc.ts';
import { type ContenderName, contenderNames } from './contenders.ts';
import { type HistoryFigures, measureHistory } from './history-benchmark.ts';
import { loadProfile } from './load-profile.ts';
import { describeMachine, type MachineDescription, machineLine } from './machine.ts';
import { type OtlpReceiver, startOtlpReceiver } from './otlp-receiver.ts';
import { renderConsoleTables, renderMarkdownTables } from './results-table.ts';
import { removeWorkDirectory, runScenario, type ScenarioObservations } from './run-scenario.ts';
import { figuresOf, type ScenarioFigures } from './scenario-figures.ts';
import { evaluateTargets, lookupFigures, type TargetOutcome } from './targets.ts';

/** What bench/results.json holds: everything needed to re-render the doc without re-running. */
interface BenchResults {
  generatedAt: string;
  command: string;
  isQuick: boolean;
  /** The commit measured, and whether the working tree had changes on top of it. */
  revision: { commit: string; hasLocalChanges: boolean };
  machine: MachineDescription;
  loadProfile: typeof loadProfile & { tokensPerChunk: number };
  conversationCounts: number[];
  scenarios: ScenarioFigures[];
  /** Scenarios that could not run, with why. */
  failures: { contender: ContenderName; conversationCount: number; error: string }[];
  history: HistoryFigures | undefined;
  targets: TargetOutcome[];
}

const benchDirectory = import.meta.dirname;
const resultsPath = join(benchDirectory, 'results.json');
const docPath = resolve(benchDirectory, '..', 'docs', 'benchmarks.md');
/** Above this many cores used by other processes on average, a run's figures are flagged. */
const busyMachineCores = 0.2;
const contenderLabels: Record<ContenderName, string> = { bot: 'parley', floor: 'floor' };

// `--processes N`: the multi-process load (bench/multi-process.ts), its own figures and table.
if (process.argv.some((argument) => argument === '--processes' || argument.startsWith('--processes='))) {
  await import('./multi-process.ts');
  process.exit(0);
}
// `--tools`: MCP calls and the tool loop (bench/tool-bench.ts), its own figures.
if (process.argv.some((argument) => argument === '--tools')) {
  await import('./tool-bench.ts');
  process.exit(0);
}
const options = parseBenchOptions(process.argv.slice(2));
if (options.isRenderOnly) {
  const results = JSON.parse(readFileSync(resultsPath, 'utf8')) as BenchResults;
  updateBenchmarksDoc({ path: docPath, generated: renderDocSection(results) });
  process.stdout.write(`re-rendered ${docPath} from ${resultsPath}\n`);
} else {
  await runBench();
}

async function runBench(): Promise<void> {
  const machine = describeMachine();
  const revision = describeRevision();
  const write = (text: string) => process.stdout.write(text);
  write(`parley bench on ${machineLine(machine)}\n`);
  write(
    `load: one mention per channel, ${loadProfile.tokensPerReply} tokens at ${loadProfile.tokensPerSecond}/s ` +
      `after ${loadProfile.timeToFirstTokenMs} ms, ${options.tokensPerChunk} token(s) an SSE event; ` +
      `N = ${options.conversationCounts.join(', ')}\n`,
  );
  const profileDirectory = options.isProfiling ? join(benchDirectory, 'profiles') : undefined;
  if (profileDirectory !== undefined) mkdirSync(profileDirectory, { recursive: true });

  write(`history: ${options.historyIterations} × load + append on a 200-turn SQLite conversation … `);
  const history = await measureHistory({ iterations: options.historyIterations });
  write(`p50 ${history.loadAndAppendMs.p50?.toFixed(2)} ms\n`);

  const { scenarios, failures } = await measureContenders({ profileDirectory, write });

  const figures = lookupFigures(scenarios);
  const targets = evaluateTargets(figures, history);
  write(
    renderConsoleTables({
      conversationCounts: options.conversationCounts,
      figures,
      outcomes: targets,
      history,
    }),
  );
  const results: BenchResults = {
    generatedAt: new Date().toISOString(),
    command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    isQuick: options.isQuick,
    revision,
    machine,
    loadProfile: { ...loadProfile, tokensPerChunk: options.tokensPerChunk },
    conversationCounts: options.conversationCounts,
    scenarios,
    failures,
    history,
    targets,
  };
  const json = `${JSON.stringify(results, null, 2)}\n`;
  if (options.isWriting) {
    writeFileSync(resultsPath, json);
    updateBenchmarksDoc({ path: docPath, generated: renderDocSection(results) });
    write(`\nwrote ${resultsPath} and the tables of ${docPath}\n`);
  } else {
    // A partial or profiled run must not replace the figures of a full one.
    const scratchPath = join(tmpdir(), `parley-bench-results-${Date.now()}.json`);
    writeFileSync(scratchPath, json);
    write(
      `\nwrote ${scratchPath} (not results.json: ${options.isQuick ? 'quick' : 'partial or profiled'} run)\n`,
    );
  }
  if (profileDirectory !== undefined) write(`CPU profiles in ${profileDirectory}\n`);
}

/**
 * Runs every load for both contenders, each in fresh processes, and pools the repetitions of each.
 * A run that fails is reported and left out; the others still count.
 */
async function measureContenders({
  profileDirectory,
  write,
}: {
  profileDirectory: string | undefined;
  write: (text: string) => void;
}): Promise<Pick<BenchResults, 'scenarios' | 'failures'>> {
  const scenarios: ScenarioFigures[] = [];
  const failures: BenchResults['failures'] = [];
  const receiver = options.isComparingTracing ? await startOtlpReceiver() : undefined;
  for (const conversationCount of options.conversationCounts) {
    const repetitionCount = options.repetitionsFor(conversationCount);
    const repetitionsByContender = new Map<ContenderName, ScenarioObservations[]>();
    const tracedRepetitions: ScenarioObservations[] = [];
    // Alternating the contenders spreads any drift of the machine over both.
    for (let repetition = 1; repetition <= repetitionCount; repetition += 1) {
      for (const contender of contenderNames) {
        if (contender === 'bot' && receiver !== undefined) {
          const traced = await runTraced({ conversationCount, receiver, profileDirectory, write });
          if (traced !== undefined) tracedRepetitions.push(traced);
        }
        const startedAtMs = Date.now();
        const label = repetitionCount > 1 ? ` (run ${repetition}/${repetitionCount})` : '';
        write(`N=${conversationCount} ${contenderLabels[contender]}${label} … `);
        try {
          const observations = await runScenario({
            contender,
            conversationCount,
            roundCount: conversationCount === 1 ? options.singleConversationRounds : 1,
            cpuProfileDirectory: profileDirectory,
            tokensPerChunk: options.tokensPerChunk,
          });
          const list = repetitionsByContender.get(contender) ?? [];
          list.push(observations);
          repetitionsByContender.set(contender, list);
          write(
            `${progressLine(figuresOf([observations]))}, ${((Date.now() - startedAtMs) / 1000).toFixed(0)} s\n`,
          );
          if (options.isKeepingLogs) write(`  logs: ${observations.logDirectory}\n`);
          else removeWorkDirectory(observations.logDirectory);
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          failures.push({ contender, conversationCount, error: message });
          write(`failed: ${message}\n`);
        }
      }
    }
    for (const repetitions of repetitionsByContender.values()) scenarios.push(figuresOf(repetitions));
    const untraced = repetitionsByContender.get('bot');
    if (tracedRepetitions.length > 0 && untraced !== undefined) {
      write(tracingComparison(figuresOf(untraced), figuresOf(tracedRepetitions)));
    }
  }
  await receiver?.close();
  return { scenarios, failures };
}

/** One run of parley with tracing on, exporting to the bench's receiver (`--otlp`). */
async function runTraced({
  conversationCount,
  receiver,
  profileDirectory,
  write,
}: {
  conversationCount: number;
  receiver: OtlpReceiver;
  profileDirectory: string | undefined;
  write: (text: string) => void;
}): Promise<ScenarioObservations | undefined> {
  const startedAtMs = Date.now();
  write(`N=${conversationCount} parley, traced … `);
  receiver.takeSpanCount();
  try {
    const observations = await runScenario({
      contender: 'bot',
      conversationCount,
      roundCount: conversationCount === 1 ? options.singleConversationRounds : 1,
      tokensPerChunk: options.tokensPerChunk,
      cpuProfileDirectory: profileDirectory,
      otlpEndpoint: receiver.endpoint,
    });
    write(
      `${progressLine(figuresOf([observations]))}, ${receiver.takeSpanCount()} spans exported, ${((Date.now() - startedAtMs) / 1000).toFixed(0)} s\n`,
    );
    removeWorkDirectory(observations.logDirectory);
    return observations;
  } catch (error) {
    write(`failed: ${error instanceof Error ? error.message : String(error)}\n`);
    return undefined;
  }
}

/** parley without and with tracing at one load, side by side. */
function tracingComparison(untraced: ScenarioFigures, traced: ScenarioFigures): string {
  const cpu = (figures: ScenarioFigures) => figures.cpuSecondsPerThousandTokens?.toFixed(3) ?? '—';
  const ratio =
    untraced.cpuSecondsPerThousandTokens === undefined || traced.cpuSecondsPerThousandTokens === undefined
      ? '—'
      : `${((traced.cpuSecondsPerThousandTokens / untraced.cpuSecondsPerThousandTokens - 1) * 100).toFixed(1)} %`;
  return (
    `N=${untraced.conversationCount} tracing off → on: CPU ${cpu(untraced)} → ${cpu(traced)} s/1k tokens (${ratio}), ` +
    `busiest second ${untraced.busiestSecondCpuCores.toFixed(2)} → ${traced.busiestSecondCpuCores.toFixed(2)} cores, ` +
    `peak RSS ${untraced.peakRssMiB.toFixed(0)} → ${traced.peakRssMiB.toFixed(0)} MiB\n`
  );
}

function describeRevision(): BenchResults['revision'] {
  const git = (args: string[]) =>
    execFileSync('git', args, {
      cwd: resolve(benchDirectory, '..'),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  try {
    // The bench's own files do not change what it measures.
    const changes = git(['status', '--porcelain', '--', '.', ':!bench', ':!docs/benchmarks.md']);
    return { commit: git(['rev-parse', 'HEAD']).trim(), hasLocalChanges: changes.trim() !== '' };
  } catch {
    return { commit: 'unknown', hasLocalChanges: false };
  }
}

function progressLine(figures: ScenarioFigures): string {
  const format = (value: number | undefined) => (value === undefined ? '—' : value.toFixed(0));
  return (
    `${figures.exactReplies}/${figures.replyCount} exact, first text p50 ${format(figures.eventToFirstTextMs.p50)} ms, ` +
    `final lag p99 ${format(figures.finalLagMs.p99)} ms, 429s ${figures.rateLimits.total}` +
    // Per run, because a pooled CPU figure hides how much one run drifts from the next.
    (figures.cpuSecondsPerThousandTokens === undefined
      ? ''
      : `, CPU ${figures.cpuSecondsPerThousandTokens.toFixed(3)} s/1k tokens`) +
    (figures.isTimedOut ? ', TIMED OUT' : '') +
    // Another process on the same cores (a test run, say) skews every figure of this run.
    (figures.otherLoad.otherProcessesCores > busyMachineCores
      ? `, WARNING: other processes used ${figures.otherLoad.otherProcessesCores.toFixed(2)} cores`
      : '')
  );
}

function renderDocSection(results: BenchResults): string {
  const figures = lookupFigures(results.scenarios);
  // Judged again from the figures, so a re-render follows changes to the targets' wording.
  const targets = evaluateTargets(figures, results.history);
  const failures = results.failures.map(
    (failure) =>
      `- N=${failure.conversationCount} ${contenderLabels[failure.contender]} failed: ${failure.error}`,
  );
  return [
    `Last run: ${results.generatedAt.slice(0, 16).replace('T', ' ')} UTC, \`${results.command}\`, at commit ` +
      `${results.revision.commit.slice(0, 7)}${results.revision.hasLocalChanges ? ' with local changes' : ''}, ` +
      `on ${machineLine(results.machine)}.`,
    `Load: one mention in each of N channels, each answered by ${results.loadProfile.tokensPerReply} tokens ` +
      `(${results.loadProfile.charactersPerToken} characters each) at ${results.loadProfile.tokensPerSecond} tokens/s ` +
      `after ${results.loadProfile.timeToFirstTokenMs} ms to the first token, ` +
      `${results.loadProfile.tokensPerChunk ?? 1} token an SSE event. Raw figures: \`bench/results.json\`.`,
    ...(failures.length > 0 ? ['', ...failures] : []),
    '',
    renderMarkdownTables({
      conversationCounts: results.conversationCounts,
      figures,
      outcomes: targets,
      history: results.history,
    }),
  ].join('\n');
}
