import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeGateway, startFakeGateway } from '../fakes/gateway/index.ts';
import { repositoryRoot, startParley } from '../support/parley-process.ts';

/**
 * The README followed literally on a fresh clone: `cp .env.example .env`, fill in the two gateway
 * values, `npm start`, from wherever the person happens to be. Each test runs the real process on a
 * copy of the project (its own .env and data folder), against the fake gateway.
 */
const apiKey = 'first-run-key-0123456789';
let fake: FakeGateway;
let project: string;

beforeAll(async () => {
  fake = await startFakeGateway({ apiKey });
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.reset();
  project = copyOfProject();
});

// What a clone has that `npm start` needs; node_modules is linked rather than installed again.
function copyOfProject(): string {
  const copy = mkdtempSync(join(tmpdir(), 'parley-clone-'));
  for (const entry of ['bin', 'src', 'adapters', 'commands', 'config', 'package.json', '.env.example']) {
    cpSync(join(repositoryRoot, entry), join(copy, entry), { recursive: true });
  }
  symlinkSync(join(repositoryRoot, 'node_modules'), join(copy, 'node_modules'));
  return copy;
}

/** `.env.example` as shipped, with only the two gateway lines filled in, as the README says. */
function writeEnvFromExample({ baseUrl }: { baseUrl: string }): void {
  const example = readFileSync(join(project, '.env.example'), 'utf8');
  const filledIn = example
    .replace(/^GATEWAY_BASE_URL=.*$/m, `GATEWAY_BASE_URL=${baseUrl}`)
    .replace(/^GATEWAY_API_KEY=.*$/m, `GATEWAY_API_KEY=${apiKey}`);
  expect(filledIn).not.toBe(example);
  writeFileSync(join(project, '.env'), filledIn);
}

async function chatOnce(line: string, { cwd }: { cwd: string }) {
  const parley = startParley({ cwd, entry: join(project, 'bin/parley.ts'), environment: {} });
  parley.write(`${line}\n`);
  parley.endInput();
  const exitCode = await parley.exited;
  return { exitCode, stdout: parley.stdout(), stderr: parley.stderr() };
}

describe('first run', () => {
  it('starts with .env copied from .env.example, from another folder, keeping its data in the project', async () => {
    writeEnvFromExample({ baseUrl: fake.baseUrl });
    fake.enqueue({ text: 'Hello! I am here.' });
    const elsewhere = mkdtempSync(join(tmpdir(), 'parley-elsewhere-'));
    const run = await chatOnce('hello', { cwd: elsewhere });
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain('Hello! I am here.');
    // Relative paths of the configuration start at the project, not at the working directory.
    expect(existsSync(join(project, 'data/parley.sqlite'))).toBe(true);
    expect(readFileSync(join(project, 'data/parley.log'), 'utf8')).toContain('reply finished');
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('names a base URL without the API version at start-up, and stops on the 404 it gets there', async () => {
    const origin = fake.baseUrl.replace(/\/api\/v1$/, '');
    writeEnvFromExample({ baseUrl: origin });
    const run = await chatOnce('hello', { cwd: project });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(
      `parley: warning: GATEWAY_BASE_URL ${origin} does not end in an API version such as /api/v1`,
    );
    expect(run.stderr).toContain(
      `parley cannot start: GATEWAY_BASE_URL ${origin}: POST ${origin}/chat/completions answered 404.`,
    );
    expect(run.stdout).toBe('');
  });

  it(".env.example's placeholder gateway is refused at start, naming it (issue 23)", async () => {
    writeFileSync(
      join(project, '.env'),
      readFileSync(join(project, '.env.example'), 'utf8').replace(
        /^GATEWAY_API_KEY=.*$/m,
        `GATEWAY_API_KEY=${apiKey}`,
      ),
    );
    const run = await chatOnce('hello', { cwd: project });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toBe(
      "parley cannot start: GATEWAY_BASE_URL https://gateway.example/api/v1: gateway.example is a reserved example name, not a gateway. Set GATEWAY_BASE_URL to your gateway's base URL (or run npm run fake-gateway to try parley without one).\n",
    );
    expect(fake.requests).toEqual([]);
  });
});

/** parley as a supervisor runs it: no terminal, standard input /dev/null (`stdio: 'ignore'`). */
function runWithoutInput(environment: Record<string, string>) {
  return spawnSync(process.execPath, [join(project, 'bin/parley.ts')], {
    cwd: project,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...environment },
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
    timeout: 10_000,
  });
}

describe('paths typed in the terminal (issue 23)', () => {
  it('start in the folder npm start was run from (INIT_CWD), not the project folder npm moves to', async () => {
    writeEnvFromExample({ baseUrl: fake.baseUrl });
    fake.enqueue({ text: 'It is a short note.' });
    const subfolder = join(project, 'notes');
    mkdirSync(subfolder);
    writeFileSync(join(subfolder, 'todo.txt'), 'buy milk\n');
    // What `npm start` in notes/ does: the script runs in the project, INIT_CWD says where the person was.
    const parley = startParley({
      cwd: project,
      entry: join(project, 'bin/parley.ts'),
      environment: { INIT_CWD: subfolder },
    });
    parley.write('/file todo.txt what is this?\n');
    parley.endInput();
    expect(await parley.exited).toBe(0);
    expect(parley.stdout()).toContain('It is a short note.');
    expect(JSON.stringify(fake.requests.at(-1)?.body)).toContain('buy milk');
  });
});

describe('started with nothing to talk to (issue 23)', () => {
  it('no platform and no terminal is one line and exit code 1, not a silent exit 0', () => {
    const run = runWithoutInput({
      GATEWAY_BASE_URL: fake.baseUrl,
      GATEWAY_API_KEY: apiKey,
      STORE_URL: 'memory://',
    });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(
      'parley cannot start: no platform is configured and standard input is not a terminal.',
    );
  });

  it('names a misspelled variable once, with the one it probably meant', () => {
    const run = runWithoutInput({
      GATEWAY_BASE_URL: fake.baseUrl,
      GATEWAY_API_KEY: apiKey,
      STORE_URL: 'memory://',
      DISCORD_TOKN: 'a-token',
      SLACK_SOMETHING: 'x',
    });
    expect(run.status).toBe(1);
    const warnings = run.stderr.split('\n').filter((line) => line.startsWith('parley: warning:'));
    expect(warnings).toEqual([
      'parley: warning: DISCORD_TOKN is set but parley has no such variable, so it is ignored (did you mean DISCORD_TOKEN?); docs/configuration.md lists every variable.',
      'parley: warning: SLACK_SOMETHING is set but parley has no such variable, so it is ignored; docs/configuration.md lists every variable.',
    ]);
  });
});

describe('a store that cannot be reached at start (issue 23)', () => {
  it('Redis on a closed port is one line naming it, exit code 1', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as { port: number };
    await new Promise((resolve) => closed.close(resolve));
    writeEnvFromExample({ baseUrl: fake.baseUrl });
    const parley = startParley({
      cwd: project,
      entry: join(project, 'bin/parley.ts'),
      environment: { STORE_URL: `redis://:store-password@127.0.0.1:${port}` },
    });
    parley.endInput();
    expect(await parley.exited).toBe(1);
    expect(parley.stdout()).toBe('');
    expect(parley.stderr()).toBe(
      `parley cannot start: STORE_URL redis://:***@127.0.0.1:${port} cannot be reached: the connection failed (nothing answers there). Start the store, or set STORE_URL to one that runs.\n`,
    );
  }, 30_000);
});

// A read-only folder as a container's read-only volume makes it: a bind mount remounted read-only
// in a private mount namespace (unshare), so even root gets EROFS.
const canMountReadOnly = spawnSync('unshare', ['-rm', 'true']).status === 0;

function runWithReadOnlyFolder({
  folder,
  environment,
}: {
  folder: string;
  environment: Record<string, string>;
}) {
  const script = 'mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" && shift && exec "$@"';
  return spawnSync(
    'unshare',
    ['-rm', 'sh', '-c', script, 'sh', folder, process.execPath, join(project, 'bin/parley.ts')],
    {
      cwd: project,
      env: {
        PATH: process.env.PATH ?? '',
        GATEWAY_BASE_URL: fake.baseUrl,
        GATEWAY_API_KEY: apiKey,
        ...environment,
      },
      input: 'hello\n',
      encoding: 'utf8',
      timeout: 10_000,
    },
  );
}

describe.skipIf(!canMountReadOnly)(
  `start-up with a folder it cannot write${canMountReadOnly ? '' : ' (skipped: unshare -rm is not allowed here)'}`,
  () => {
    it('a read-only data folder is one line naming the path and the cause, exit code 1', () => {
      const data = join(project, 'data');
      mkdirSync(data);
      const run = runWithReadOnlyFolder({
        folder: data,
        environment: { LOG_FILE: join(project, 'parley.log') },
      });
      expect(run.status).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(
        `parley cannot start: STORE_URL (the SQLite file): cannot write ${join(data, 'parley.sqlite')}: the file system is read-only (EROFS). Make its folder writable (in a container, mount a volume there) or set STORE_URL.\n`,
      );
    });

    it('an unwritable LOG_FILE is one line naming it, exit code 1', () => {
      const logs = join(project, 'logs');
      mkdirSync(logs);
      const run = runWithReadOnlyFolder({
        folder: logs,
        environment: { LOG_FILE: join(logs, 'parley.log'), STORE_URL: 'memory://' },
      });
      expect(run.status).toBe(1);
      expect(run.stderr).toBe(
        `parley cannot start: LOG_FILE: cannot write ${join(logs, 'parley.log')}: the file system is read-only (EROFS). Set LOG_FILE to a writable place.\n`,
      );
    });
  },
);
