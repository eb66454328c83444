import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The real MCP servers from npm the tests run, and one fixture on the official SDK. */
const projectRoot = resolve(import.meta.dirname, '../..');
export const everythingServer = join(
  projectRoot,
  'node_modules/@modelcontextprotocol/server-everything/dist/index.js',
);
export const filesystemServer = join(
  projectRoot,
  'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js',
);
export const changingToolsServer = join(projectRoot, 'test/fixtures/mcp/changing-tools-server.ts');

/** A stdio server entry of the tools file that runs a script with this Node. */
export function nodeServer(script: string, ...args: string[]) {
  return { command: process.execPath, args: [script, ...args] };
}

/** Writes a tools file to a fresh temporary folder and returns its path. */
export function writeToolsFile(servers: Record<string, unknown>): string {
  const path = join(mkdtempSync(join(tmpdir(), 'parley-tools-')), 'tools.json');
  writeFileSync(path, JSON.stringify({ servers }, null, 2));
  return path;
}

/** server-everything in its Streamable HTTP mode on a free loopback port, its endpoint at `url`. */
export interface HttpEverything {
  readonly url: string;
  close(): Promise<void>;
}

/** On `port` when given (to start it again where parley knows it), else on a free one. */
export async function startHttpEverything({ port: wanted }: { port?: number } = {}): Promise<HttpEverything> {
  const port = wanted ?? (await freePort());
  const child: ChildProcess = spawn(process.execPath, [everythingServer, 'streamableHttp'], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolveStarted, reject) => {
    let said = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      said += chunk.toString('utf8');
      if (said.includes('listening on port')) resolveStarted();
    });
    child.once('exit', (code) => reject(new Error(`server-everything exited (${code}): ${said}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async close() {
      // Closed already (a test stops it, then the cleanup closes it again): a signal ended it.
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolveExit) => child.once('exit', resolveExit));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolveListening) => server.listen(0, '127.0.0.1', resolveListening));
  const address = server.address();
  await new Promise((resolveClosed) => server.close(resolveClosed));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Resolves once `condition` holds, polling; rejects after `timeoutMs`. */
export async function waitUntil(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('waited too long');
    await new Promise((resolveLater) => setTimeout(resolveLater, 25));
  }
}
