import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { ScenarioSkipped } from './scenario.ts';

/**
 * A redis-server of the scenario's own, on a port of its own, with its dump in a folder of its own:
 * it can be stopped (saving its dump, as `redis-cli shutdown` does), started again from that dump on
 * the same port, and frozen with SIGSTOP (connections up, no answers) — what a shared Redis that
 * others use must never be.
 */
export interface RedisServer {
  /** `redis://127.0.0.1:<port>/0`, for the bot's STORE_URL. */
  readonly url: string;
  /** Saves the dump and exits (SIGTERM, with a save point configured); resolves once it has. */
  stop(): Promise<void>;
  /** Starts it again on the same port, loading the dump; resolves once it answers PING. */
  start(): Promise<void>;
  /** Writes the dump now (SAVE), as a periodic save point would. */
  save(): Promise<void>;
  /** SIGKILL: exits without saving, as a crash does; the last dump is what a start loads. */
  kill(): Promise<void>;
  /** SIGSTOP: the process keeps its sockets open and answers nothing. */
  freeze(): void;
  /** SIGCONT. */
  thaw(): void;
  /** Stops it, whatever state it is in, and removes its folder. */
  close(): Promise<void>;
}

/** Starts redis-server; skips the scenario, saying why, when there is none on this machine. */
export async function startRedisServer(): Promise<RedisServer> {
  const directory = mkdtempSync(join(tmpdir(), 'parley-faults-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  const start = async () => {
    const started = spawn(
      'redis-server',
      // A save point makes SIGTERM write the dump before exiting, as a planned restart does.
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        directory,
        '--save',
        '3600 1',
        '--appendonly',
        'no',
      ],
      { stdio: 'ignore' },
    );
    child = started;
    exited = new Promise((resolve) => started.once('exit', () => resolve()));
    const spawned = await new Promise<Error | undefined>((resolve) => {
      started.once('spawn', () => resolve(undefined));
      started.once('error', resolve);
    });
    if (spawned !== undefined) {
      rmSync(directory, { recursive: true, force: true });
      throw new ScenarioSkipped(`cannot start redis-server (${spawned.message})`);
    }
    await waitForPong(port);
  };
  const stop = async () => {
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGCONT');
    child.kill('SIGTERM');
    await exited;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}/0`,
    stop,
    start,
    async save() {
      if ((await sendInline(port, 'SAVE')) !== '+OK')
        throw new Error(`redis-server on port ${port} did not SAVE`);
    },
    async kill() {
      if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await exited;
    },
    freeze: () => child?.kill('SIGSTOP'),
    thaw: () => child?.kill('SIGCONT'),
    async close() {
      if (child !== undefined && child.exitCode === null && child.signalCode === null) {
        child.kill('SIGCONT');
        child.kill('SIGKILL');
        await exited;
      }
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once the server answers PING (within 10 s), with the inline protocol, no client needed. */
async function waitForPong(port: number): Promise<void> {
  const deadlineMs = Date.now() + 10_000;
  while (Date.now() < deadlineMs) {
    if (await answersPing(port)) return;
    await delay(50);
  }
  throw new Error(`redis-server on port ${port} did not answer PING within 10 s`);
}

async function answersPing(port: number): Promise<boolean> {
  return (await sendInline(port, 'PING')) === '+PONG';
}

/** Sends one inline command and resolves with the first line of the answer ('' when none came in 5 s). */
function sendInline(port: number, command: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (answer: string) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(5_000, () => done(''));
    socket.once('error', () => done(''));
    socket.on('data', (chunk) => done(chunk.toString().split('\r\n')[0] ?? ''));
    socket.connect(port, '127.0.0.1', () => socket.write(`${command}\r\n`));
  });
}
