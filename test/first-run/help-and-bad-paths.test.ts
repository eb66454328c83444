import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from '../support/parley-process.ts';

/** The scripts a newcomer runs by hand: asked for help or given a bad place, one clear answer, no stack. */
function run(script: string, args: string[], environment: Record<string, string> = {}) {
  return spawnSync(process.execPath, [join(repositoryRoot, script), ...args], {
    cwd: repositoryRoot,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...environment },
    input: '',
    encoding: 'utf8',
    timeout: 15_000,
  });
}

const noStack = (text: string) => expect(text).not.toMatch(/\n\s+at |node:internal|throw er/);

describe('asked for help (issue 23)', () => {
  it('npm start -- --help prints how to run it', () => {
    const result = run('bin/parley.ts', ['--help']);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('usage: npm start');
    expect(result.stdout).toContain('GATEWAY_BASE_URL, GATEWAY_API_KEY');
  });

  it('npm run fake-gateway -- --help prints its flags, and starts nothing', () => {
    const result = run('test/fakes/gateway/main.ts', ['--help']);
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(
      'usage: npm run fake-gateway -- [--port 8787] [--api-key test-key]\nRuns a fake Model Gateway that streams made-up answers, for trying parley without an account.\n',
    );
  });

  it('npm run slack-manifest -- --help prints its flags, not "Unknown option"', () => {
    const result = run('slack/print-manifest.ts', ['--help']);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^usage: npm run slack-manifest -- \[--http/);
    expect(result.stdout + result.stderr).not.toContain('Unknown option');
  });
});

describe('given a place it cannot use (issue 23)', () => {
  it('npm run fake-gateway on a busy port is one line', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const { port } = busy.address() as { port: number };
    try {
      // Asynchronous: the busy port is held by this process, which must stay free to keep it.
      const child = spawn(
        process.execPath,
        [join(repositoryRoot, 'test/fakes/gateway/main.ts'), '--port', String(port)],
        {
          env: { PATH: process.env.PATH ?? '' },
        },
      );
      let stderr = '';
      child.stderr.on('data', (chunk) => {
        stderr += String(chunk);
      });
      const code = await new Promise((resolve) => child.on('close', resolve));
      expect(code).toBe(1);
      expect(stderr).toBe(
        `fake gateway cannot start on port ${port}: the port is in use (is a fake gateway running already?). Choose another with --port.\n`,
      );
    } finally {
      busy.close();
    }
  });

  it.each([
    ['a folder', () => mkdtempSync(join(tmpdir(), 'parley-log-folder-')), 'it is a folder (EISDIR)'],
    ['a place under /proc', () => '/proc/parley.log', 'that folder cannot hold new files (ENOENT)'],
  ])('LOG_FILE at %s is one line naming it, exit code 1', (_, logFile, cause) => {
    const path = logFile();
    const result = run('bin/parley.ts', [], {
      GATEWAY_BASE_URL: 'http://127.0.0.1:1/api/v1',
      GATEWAY_API_KEY: 'key-0123456789',
      STORE_URL: 'memory://',
      LOG_FILE: path,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(
      `parley cannot start: LOG_FILE: cannot write ${path}: ${cause}. Set LOG_FILE to a writable place.\n`,
    );
    noStack(result.stderr);
  });
});
