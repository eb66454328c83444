import { parseArgs } from 'node:util';

/** What `npm run bench -- <flags>` asked for. */
export interface BenchOptions {
  /** N=1 and 50 only, fewer N=1 rounds; writes nothing to the repository. */
  isQuick: boolean;
  conversationCounts: number[];
  /** Fresh runs per contender at `conversationCount`, pooled: the large loads vary most between runs. */
  repetitionsFor(conversationCount: number): number;
  /** Rounds of the N=1 load, for a p99 of its latency. */
  singleConversationRounds: number;
  historyIterations: number;
  /** Tokens per SSE event of the fake gateway (an experiment: the load streams 1). */
  tokensPerChunk: number;
  /** Run every child with `--cpu-prof`, profiles written to `bench/profiles/`. */
  isProfiling: boolean;
  /** Keep each scenario's temporary directory (the bot's log, SQLite file and output). */
  isKeepingLogs: boolean;
  /** Only re-render docs/benchmarks.md from bench/results.json. */
  isRenderOnly: boolean;
  /** Write results.json and the doc (default for a full run, never for a quick one). */
  isWriting: boolean;
  /**
   * Run parley a second time beside each of its runs with tracing on, exporting over OTLP/HTTP to a
   * receiver in the bench process (issue 38's cost of tracing); prints the two side by side.
   */
  isComparingTracing: boolean;
}

const usage = [
  'npm run bench -- [options]',
  '  --quick                 N=1 and 50 only, 4 rounds at N=1; writes nothing to the repository',
  '  --conversations 1,50    the loads to run (default 1,50,200,500)',
  '  --rounds 10             N=1 replies one after another, for its p99',
  '  --repetitions 2         fresh runs pooled at N=200 and above',
  '  --history-iterations    load + append iterations of the history measure (default 500)',
  '  --tokens-per-chunk 1    tokens per SSE event (an experiment; the same 50 tokens/s in fewer events)',
  '  --profile               run every child with --cpu-prof, into bench/profiles/',
  "  --keep-logs             keep each run's temporary directory (bot log, SQLite file)",
  '  --render                only re-render docs/benchmarks.md from bench/results.json',
  '  --tools [--calls 2000] [--replies 1000]   MCP stdio calls, the tool loop per round, memory with five servers',
  '  --no-write              do not write bench/results.json and the doc',
  '  --otlp                  also run parley with tracing on (OTLP/HTTP to a local receiver), side by side',
].join('\n');

export function parseBenchOptions(argv: readonly string[]): BenchOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      quick: { type: 'boolean', default: false },
      conversations: { type: 'string' },
      rounds: { type: 'string' },
      repetitions: { type: 'string' },
      'history-iterations': { type: 'string' },
      'tokens-per-chunk': { type: 'string' },
      profile: { type: 'boolean', default: false },
      'keep-logs': { type: 'boolean', default: false },
      render: { type: 'boolean', default: false },
      'no-write': { type: 'boolean', default: false },
      otlp: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  const isQuick = values.quick;
  const conversationCounts = (values.conversations ?? (isQuick ? '1,50' : '1,50,200,500'))
    .split(',')
    .map((part) => Number(part.trim()));
  if (conversationCounts.some((count) => !Number.isInteger(count) || count < 1 || count > 2000)) {
    throw new Error(`--conversations must be whole numbers from 1 to 2000, got ${values.conversations}`);
  }
  const isCustom =
    values.conversations !== undefined ||
    values.rounds !== undefined ||
    values.repetitions !== undefined ||
    values['tokens-per-chunk'] !== undefined;
  const largestLoadRepetitions = positiveInteger(values.repetitions, isQuick ? 1 : 2, '--repetitions');
  return {
    isQuick,
    conversationCounts,
    repetitionsFor: (conversationCount) => (conversationCount >= 200 ? largestLoadRepetitions : 1),
    singleConversationRounds: positiveInteger(values.rounds, isQuick ? 4 : 10, '--rounds'),
    historyIterations: positiveInteger(
      values['history-iterations'],
      isQuick ? 200 : 500,
      '--history-iterations',
    ),
    tokensPerChunk: positiveInteger(values['tokens-per-chunk'], 1, '--tokens-per-chunk'),
    isProfiling: values.profile,
    isKeepingLogs: values['keep-logs'],
    isRenderOnly: values.render,
    // A partial run must not replace the figures of a full one.
    isWriting: !values['no-write'] && !isQuick && !isCustom && !values.profile && !values.otlp,
    isComparingTracing: values.otlp,
  };
}

function positiveInteger(text: string | undefined, fallback: number, name: string): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive whole number`);
  return value;
}
