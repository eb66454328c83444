import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';

/** The repository root, where `bin/parley.ts` and the default config live. */
export const repositoryRoot = resolve(import.meta.dirname, '../..');

/** One JSON log line of the bot. */
export type LogLine = Record<string, unknown> & { msg?: string; level?: number };

/** parley as a real process (`node bin/parley.ts`), the way an operator runs it. */
export interface BotProcess {
  readonly pid: number;
  /** Every JSON log line written so far. */
  readonly logLines: LogLine[];
  /** Everything written to stderr and stdout, log lines included. */
  output(): string;
  /** Resolves with the first log line (past or future) the predicate accepts. */
  waitForLog(predicate: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  /** Resolves with the exit code and signal once the process has ended and its output is read. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal: NodeJS.Signals): void;
}

const liveProcesses = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of liveProcesses) child.kill('SIGKILL');
});

/**
 * Starts the bot with exactly `environment` (plus PATH and HOME): no developer's .env or token leaks
 * in, since the working directory is the given one and the config reads its .env.
 */
export function startBotProcess({
  environment,
  workingDirectory = repositoryRoot,
}: {
  environment: Record<string, string>;
  workingDirectory?: string;
}): BotProcess {
  const child = spawn(process.execPath, [resolve(repositoryRoot, 'bin/parley.ts')], {
    cwd: workingDirectory,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      LOG_FORMAT: 'json',
      // A platform run serves health on 8080 by default; test processes run side by side.
      HEALTH_PORT: 'off',
      MODEL_CAPABILITIES_FILE: resolve(repositoryRoot, 'config/models.json'),
      ...environment,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error('could not start the bot');
  liveProcesses.add(child);
  const exited = once(child, 'close').then(([code, signal]) => {
    liveProcesses.delete(child);
    return { code: code as number | null, signal: signal as NodeJS.Signals | null };
  });
  const logLines: LogLine[] = [];
  const waiters: Array<{ predicate: (line: LogLine) => boolean; resolve: (line: LogLine) => void }> = [];
  let output = '';
  let pending = '';
  const onData = (data: Buffer) => {
    const text = data.toString('utf8');
    output += text;
    pending += text;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      let parsed: LogLine;
      try {
        parsed = JSON.parse(line) as LogLine;
      } catch {
        continue;
      }
      logLines.push(parsed);
      for (const waiter of waiters.filter((candidate) => candidate.predicate(parsed))) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(parsed);
      }
    }
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  return {
    pid: child.pid,
    logLines,
    output: () => output,
    exited,
    kill: (signal) => child.kill(signal),
    waitForLog(predicate, timeoutMs = 10_000) {
      const seen = logLines.find(predicate);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolvePromise, reject) => {
        const timer = setTimeout(() => {
          reject(
            new Error(
              `the bot wrote no such log line within ${timeoutMs} ms; output:\n${output.slice(-3000)}`,
            ),
          );
        }, timeoutMs);
        waiters.push({
          predicate,
          resolve: (line) => {
            clearTimeout(timer);
            resolvePromise(line);
          },
        });
        void exited.then(({ code }) => {
          clearTimeout(timer);
          reject(new Error(`the bot exited (${code}) before the log line; output:\n${output.slice(-3000)}`));
        });
      });
    },
  };
}

/**
 * How many lines with `msg` the processes logged together, once that count reaches `expected` or
 * `withinMs` has passed: a process logs "reply finished" just after the reply's last write, so a
 * test that has seen every reply may read the logs a moment before the last lines arrive.
 */
export async function countLogLines({
  bots,
  msg,
  expected,
  withinMs = 5_000,
}: {
  bots: readonly BotProcess[];
  msg: string;
  expected: number;
  withinMs?: number;
}): Promise<number> {
  const count = () =>
    bots.reduce((sum, bot) => sum + bot.logLines.filter((line) => line.msg === msg).length, 0);
  const deadlineMs = Date.now() + withinMs;
  while (count() < expected && Date.now() < deadlineMs) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return count();
}
