import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

/** The repository's root, where `npm start` runs. */
export const repositoryRoot = resolve(import.meta.dirname, '../..');

/** `script` from util-linux runs a command in a pseudo-terminal; BSD's takes other flags. */
export const hasUtilLinuxScript =
  spawnSync('script', ['--version'], { encoding: 'utf8' }).stdout?.includes('util-linux') === true;

/** Removes terminal control sequences (cursor moves, line clears, colours) from what a terminal showed. */
export function withoutControlSequences(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the sequences to remove.
  return text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');
}

/** parley as a real process, as a person starts it. */
export interface ParleyProcess {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Types into its standard input (its terminal, when it has one). */
  write(text: string): void;
  endInput(): void;
  /** Resolves once `stdout` (or `stderr`) holds the text; rejects after `timeoutMs`. */
  waitForOutput(
    expected: string | RegExp,
    options?: { stream?: 'stdout' | 'stderr'; timeoutMs?: number },
  ): Promise<void>;
  /** Resolves with the exit code when the process ends. */
  readonly exited: Promise<number | null>;
  /** Sends `signal` (default SIGTERM) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts `node <entry>` with only PATH and HOME from this process plus `environment`, in `cwd`.
 * With `isTerminal` it runs inside a pseudo-terminal through `script`, so the process sees a TTY on
 * standard input and output as it does for a person (its standard error is that terminal too).
 */
export function startParley({
  environment,
  cwd = repositoryRoot,
  entry = resolve(repositoryRoot, 'bin/parley.ts'),
  isTerminal = false,
}: {
  environment: Record<string, string>;
  cwd?: string;
  entry?: string;
  isTerminal?: boolean;
}): ParleyProcess {
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...environment };
  const child = isTerminal
    ? spawn('script', ['-qfec', `${quote(process.execPath)} ${quote(entry)}`, '/dev/null'], {
        cwd,
        env: { ...env, TERM: 'xterm' },
        stdio: ['pipe', 'pipe', 'pipe'],
      })
    : spawn(process.execPath, [entry], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  const output = { stdout: '', stderr: '' };
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const waiter of waiters) waiter();
  };
  child.stdout?.on('data', (chunk) => {
    output.stdout += String(chunk);
    notify();
  });
  child.stderr?.on('data', (chunk) => {
    output.stderr += String(chunk);
    notify();
  });
  const exited = new Promise<number | null>((resolveExit, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      notify();
      resolveExit(code);
    });
  });
  return {
    child,
    stdout: () => output.stdout,
    stderr: () => output.stderr,
    write: (text) => child.stdin?.write(text),
    endInput: () => child.stdin?.end(),
    waitForOutput(expected, { stream = 'stdout', timeoutMs = 10_000 } = {}) {
      const isThere = () => {
        const text = withoutControlSequences(output[stream]);
        return typeof expected === 'string' ? text.includes(expected) : expected.test(text);
      };
      return new Promise<void>((resolveWait, reject) => {
        const check = () => {
          if (isThere()) {
            finish();
            resolveWait();
          } else if (child.exitCode !== null) {
            finish();
            reject(
              new Error(
                `parley exited (${child.exitCode}) before printing ${expected}:\n${output[stream]}\n${output.stderr}`,
              ),
            );
          }
        };
        const timer = setTimeout(() => {
          finish();
          reject(
            new Error(
              `parley did not print ${expected} within ${timeoutMs} ms:\n${output[stream]}\n${output.stderr}`,
            ),
          );
        }, timeoutMs);
        const finish = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

function quote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
