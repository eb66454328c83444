import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';

/** A contender running as a child process, so its CPU time and memory are its own. */
export interface RunningChild {
  readonly pid: number;
  /** Resolves once a line of its standard output equals `line`. */
  waitForLine(line: string, timeoutMs: number): Promise<void>;
  /** Whether it has exited (by itself or killed). */
  readonly hasExited: boolean;
  /** SIGTERM, then SIGKILL if it has not exited after `graceMs`. Resolves with how it ended. */
  stop(graceMs: number): Promise<{ code: number | null; signal: NodeJS.Signals | null; wasKilled: boolean }>;
}

const liveChildren = new Set<ChildProcess>();

// Whatever ends the bench (an exception, Ctrl+C), no contender may outlive it and keep a port.
process.once('exit', () => {
  for (const child of liveChildren) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    for (const child of liveChildren) child.kill('SIGKILL');
    process.exit(130);
  });
}

/**
 * Starts `node <args>` (or `executable <args>`) with exactly `environment` (nothing inherited but
 * PATH and HOME, so a developer's .env or tokens cannot leak in). Standard error and output go to
 * `logPath`.
 */
export function startChild({
  args,
  environment,
  workingDirectory,
  logPath,
  executable = process.execPath,
}: {
  args: readonly string[];
  environment: Record<string, string>;
  workingDirectory: string;
  logPath: string;
  /** What to run instead of this node: a shell script (`scripts/start.sh`). */
  executable?: string;
}): RunningChild {
  const child = spawn(executable, args, {
    cwd: workingDirectory,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...environment },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error(`could not start ${args.join(' ')}`);
  liveChildren.add(child);
  const exited = once(child, 'exit').then(([code, signal]) => {
    liveChildren.delete(child);
    return { code: code as number | null, signal: signal as NodeJS.Signals | null };
  });
  const log = createWriteStream(logPath);
  child.stderr?.pipe(log);
  const seenLines = new Set<string>();
  const lineWaiters: Array<{ line: string; resolve: () => void }> = [];
  let pendingOutput = '';
  child.stdout?.on('data', (data: Buffer) => {
    log.write(data);
    pendingOutput += data.toString('utf8');
    const lines = pendingOutput.split('\n');
    pendingOutput = lines.pop() ?? '';
    for (const line of lines) {
      seenLines.add(line.trim());
      for (const waiter of lineWaiters.filter((entry) => entry.line === line.trim())) waiter.resolve();
    }
  });
  let hasExited = false;
  void exited.then(() => {
    hasExited = true;
  });

  return {
    pid: child.pid,
    get hasExited() {
      return hasExited;
    },
    waitForLine(line, timeoutMs) {
      if (seenLines.has(line)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`${args.join(' ')} did not print "${line}" within ${timeoutMs} ms`)),
          timeoutMs,
        );
        lineWaiters.push({
          line,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
        void exited.then(({ code }) => {
          clearTimeout(timer);
          reject(new Error(`${args.join(' ')} exited with code ${code} before printing "${line}"`));
        });
      });
    },
    async stop(graceMs) {
      if (hasExited) return { ...(await exited), wasKilled: false };
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const ended = await exited;
      clearTimeout(timer);
      log.end();
      return { ...ended, wasKilled: ended.signal === 'SIGKILL' };
    },
  };
}
