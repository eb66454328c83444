// Proves the container image's recipe where no Docker engine runs (bash .ci/run runs this):
//   1. the Dockerfile has the agreed shape (multi-stage, Node 24 slim, npm ci --omit=dev, a non-root
//      USER, the data folder a VOLUME, a HEALTHCHECK);
//   2. its stages are replayed in a clean temporary folder: each COPY from this checkout, each RUN
//      (npm ci included) with /app mapped into the folder;
//   3. the image's CMD starts there, as an unprivileged user when this runs as root, against the fake
//      gateway: the HEALTHCHECK command passes and a chat line gets its answer;
//   4. hadolint lints the Dockerfile when it is installed, and compose.yaml names only real variables.
// Run: scripts/node22.sh node scripts/check-image-recipe.ts
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { startFakeGateway } from '../test/fakes/gateway/index.ts';
import { allEnvironmentSchemas } from './config-reference.ts';
import {
  parseCopyInstruction,
  parseDockerfile,
  parseEnvInstruction,
  parseExecForm,
  parseHealthcheck,
  type Stage,
} from './dockerfile-recipe.ts';

const repositoryRoot = resolve(import.meta.dirname, '..');
/** The unprivileged user the start step runs as when this check runs as root (`nobody`). */
const unprivilegedId = 65_534;
const isRoot = process.getuid?.() === 0;

/** A stage as replayed: its file system root inside the temporary folder, and what it set. */
interface ReplayedStage {
  readonly name: string | undefined;
  readonly root: string;
  workdir: string;
  env: Record<string, string>;
  user: string | undefined;
  volumes: string[];
  command: string[] | undefined;
  healthcheck: string[] | undefined;
}

function say(text: string): void {
  process.stdout.write(`image recipe: ${text}\n`);
}

function shapeProblems(stages: readonly Stage[]): string[] {
  const problems: string[] = [];
  const final = stages.at(-1);
  const stageNames = new Set(stages.map((stage) => stage.name).filter(Boolean));
  if (stages.length < 2 || !final) problems.push('it is not multi-stage (dependencies, then runtime)');
  for (const stage of stages) {
    if (!/^node:24(\.\d+)*-slim$/.test(stage.image) && !stageNames.has(stage.image)) {
      problems.push(`stage ${stage.name ?? stage.image} is FROM ${stage.image}, not node:24-slim`);
    }
  }
  const installs = stages
    .slice(0, -1)
    .flatMap((stage) => stage.instructions.filter((step) => step.keyword === 'RUN'));
  if (!installs.some((step) => /\bnpm ci\b/.test(step.text) && step.text.includes('--omit=dev'))) {
    problems.push('no build stage runs npm ci --omit=dev');
  }
  const finalSteps = final?.instructions ?? [];
  const user = finalSteps
    .filter((step) => step.keyword === 'USER')
    .at(-1)
    ?.text.split(':')[0];
  if (!user || user === 'root' || user === '0')
    problems.push('the runtime stage does not switch to a non-root USER');
  if (!finalSteps.some((step) => step.keyword === 'VOLUME' && step.text.includes('/app/data'))) {
    problems.push('/app/data is not a VOLUME');
  }
  if (!finalSteps.some((step) => step.keyword === 'HEALTHCHECK')) problems.push('there is no HEALTHCHECK');
  if (!finalSteps.some((step) => step.keyword === 'CMD')) problems.push('there is no CMD');
  return problems;
}

// A `chown` that maps the image's `node` user onto `nobody` when this runs as root (so the start step
// meets the same ownership as in the image), and does nothing otherwise (the files are ours already).
function writeChownShim(binDirectory: string): void {
  const path = join(binDirectory, 'chown');
  const script = isRoot
    ? `#!/bin/sh\nexec /bin/chown $(echo "$@" | sed 's/node:node/${unprivilegedId}:${unprivilegedId}/g')\n`
    : '#!/bin/sh\nexit 0\n';
  writeFileSync(path, script);
  chmodSync(path, 0o755);
}

function ignoredByDockerignore(): Set<string> {
  const path = join(repositoryRoot, '.dockerignore');
  if (!existsSync(path)) return new Set();
  return new Set(
    readFileSync(path, 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#') && !line.startsWith('!')),
  );
}

function replayStage(
  stage: Stage,
  done: readonly ReplayedStage[],
  workspace: string,
  binDirectory: string,
): ReplayedStage {
  const state: ReplayedStage = {
    name: stage.name,
    root: join(workspace, `stage-${done.length}`),
    workdir: '/',
    env: {},
    user: undefined,
    volumes: [],
    command: undefined,
    healthcheck: undefined,
  };
  mkdirSync(state.root, { recursive: true });
  const inStage = (path: string) => join(state.root, isAbsolute(path) ? path : join(state.workdir, path));
  for (const step of stage.instructions) {
    switch (step.keyword) {
      case 'WORKDIR':
        state.workdir = step.text;
        mkdirSync(inStage('.'), { recursive: true });
        break;
      case 'ENV':
        Object.assign(state.env, parseEnvInstruction(step.text));
        break;
      case 'COPY':
        replayCopy({ text: step.text, done, inStage });
        break;
      case 'RUN':
        replayRun({ text: step.text, state, cwd: inStage('.'), binDirectory });
        break;
      case 'USER':
        state.user = step.text;
        break;
      case 'VOLUME':
        state.volumes.push(
          ...(step.text.startsWith('[') ? parseExecForm(step.text) : step.text.split(/\s+/)),
        );
        break;
      case 'CMD':
        state.command = parseExecForm(step.text);
        break;
      case 'HEALTHCHECK':
        state.healthcheck = parseHealthcheck(step.text);
        break;
      default:
        break;
    }
  }
  return state;
}

function replayCopy({
  text,
  done,
  inStage,
}: {
  text: string;
  done: readonly ReplayedStage[];
  inStage: (path: string) => string;
}): void {
  const { from, sources, destination } = parseCopyInstruction(text);
  const origin = from === undefined ? undefined : done.find((stage) => stage.name === from);
  if (from !== undefined && !origin) throw new Error(`COPY --from=${from}: no such earlier stage`);
  const ignored = ignoredByDockerignore();
  const isIntoFolder = sources.length > 1 || destination.endsWith('/');
  for (const source of sources) {
    if (!origin && ignored.has(source))
      throw new Error(`COPY ${source}: .dockerignore leaves it out of the build context`);
    const sourcePath = origin ? join(origin.root, source) : join(repositoryRoot, source);
    if (!existsSync(sourcePath)) throw new Error(`COPY ${source}: it does not exist`);
    const target = isIntoFolder ? join(inStage(destination), basename(source)) : inStage(destination);
    cpSync(sourcePath, target, { recursive: true, verbatimSymlinks: true });
  }
}

function replayRun({
  text,
  state,
  cwd,
  binDirectory,
}: {
  text: string;
  state: ReplayedStage;
  cwd: string;
  binDirectory: string;
}): void {
  // Absolute paths of the image (/app/…) live inside this stage's folder here.
  const command = text.replace(/(^|[\s=:])\/app(?=[\s/]|$)/g, `$1${join(state.root, 'app')}`);
  say(`RUN ${text}`);
  const run = spawnSync('sh', ['-c', command], {
    cwd,
    env: {
      ...process.env,
      PATH: `${binDirectory}:${process.env.PATH ?? ''}`,
      // npm's cache of this replay stays in it: `npm cache clean` must not empty the machine's.
      npm_config_cache: join(state.root, '..', 'npm-cache'),
      ...state.env,
    },
    stdio: 'inherit',
  });
  if (run.status !== 0) throw new Error(`RUN ${text} failed (exit ${run.status})`);
}

// The lockfile marks packages only development needs (`"dev": true`); none may be in the image.
function checkProductionDependencies(final: ReplayedStage): void {
  const lock = JSON.parse(readFileSync(join(repositoryRoot, 'package-lock.json'), 'utf8')) as {
    packages?: Record<string, { dev?: boolean }>;
  };
  const appDirectory = join(final.root, final.workdir);
  const devOnly = Object.entries(lock.packages ?? {}).filter(
    ([path, entry]) => path !== '' && entry.dev === true,
  );
  const present = devOnly.filter(([path]) => existsSync(join(appDirectory, path))).map(([path]) => path);
  if (devOnly.length === 0) throw new Error('package-lock.json marks no development-only packages');
  if (present.length > 0)
    throw new Error(`development-only packages reached the image: ${present.join(', ')}`);
}

async function startAndAnswer(final: ReplayedStage, workspace: string): Promise<void> {
  if (!final.command || !final.healthcheck) throw new Error('the runtime stage has no CMD or HEALTHCHECK');
  // The image's node sits on a public path; ours may live under a home folder nobody can enter.
  const nodeDirectory = join(workspace, 'node-bin');
  mkdirSync(nodeDirectory);
  copyFileSync(process.execPath, join(nodeDirectory, 'node'));
  chmodSync(nodeDirectory, 0o755);
  const fake = await startFakeGateway({ apiKey: 'image-recipe-key' });
  const reply = 'The image recipe works.';
  fake.enqueue({ text: reply });
  const env = {
    PATH: `${nodeDirectory}:/usr/local/bin:/usr/bin:/bin`,
    ...final.env,
    GATEWAY_BASE_URL: fake.baseUrl,
    GATEWAY_API_KEY: 'image-recipe-key',
    // A free port rather than the image's 8080, which may be taken on this machine.
    HEALTH_PORT: '0',
  };
  const asUser = isRoot
    ? ['setpriv', `--reuid=${unprivilegedId}`, `--regid=${unprivilegedId}`, '--clear-groups', '--']
    : [];
  const [program = '', ...parameters] = [...asUser, ...final.command];
  const appDirectory = join(final.root, final.workdir);
  say(`start: ${final.command.join(' ')} in ${appDirectory}${isRoot ? ` as uid ${unprivilegedId}` : ''}`);
  const child = spawn(program, parameters, { cwd: appDirectory, env, stdio: ['pipe', 'pipe', 'inherit'] });
  try {
    const port = await healthPortFromLog(join(appDirectory, 'data/parley.log'), child);
    const [checkProgram = '', ...checkParameters] = [...asUser, ...final.healthcheck];
    const check = spawnSync(checkProgram, checkParameters, {
      env: { ...env, HEALTH_PORT: String(port) },
      timeout: 10_000,
    });
    if (check.status !== 0) throw new Error(`the HEALTHCHECK command failed (exit ${check.status})`);
    say(`HEALTHCHECK passed against port ${port}`);
    const answer = await chatOnce(child, 'hello');
    if (!answer.includes(reply)) throw new Error(`the started image did not answer; it printed:\n${answer}`);
    say('a chat line got its answer from the fake gateway');
  } finally {
    child.kill();
    await fake.close();
  }
}

async function healthPortFromLog(logFile: string, child: ChildProcess): Promise<number> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the start step exited with ${child.exitCode}`);
    const line = (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '')
      .split('\n')
      .find((text) => text.includes('health and metrics at'));
    if (line) return (JSON.parse(line) as { port: number }).port;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error('the health server did not start within 30 s');
}

function chatOnce(child: ChildProcess, line: string): Promise<string> {
  return new Promise((done, fail) => {
    let printed = '';
    child.stdout?.on('data', (chunk) => {
      printed += String(chunk);
    });
    child.once('close', () => done(printed));
    child.once('error', fail);
    child.stdin?.end(`${line}\n`);
  });
}

function lintWithHadolint(): void {
  const lint = spawnSync('hadolint', ['Dockerfile'], { cwd: repositoryRoot, stdio: 'inherit' });
  if (lint.error && (lint.error as NodeJS.ErrnoException).code === 'ENOENT') {
    say(
      'hadolint is not installed (Debian has no package of it; the npm package of that name only wraps the binary); lint skipped',
    );
    return;
  }
  if (lint.status !== 0) throw new Error('hadolint found problems in the Dockerfile');
  say('hadolint: no problems');
}

// No compose here either: check that compose.yaml sets only variables parley knows.
function checkCompose(): void {
  const compose = readFileSync(join(repositoryRoot, 'compose.yaml'), 'utf8');
  const known = new Set(allEnvironmentSchemas.flatMap((schema) => Object.keys(schema.shape)));
  const environmentBlock = /^ {4}environment:\n((?: {6}.*\n|\s*#.*\n)+)/m.exec(compose)?.[1] ?? '';
  const names = [...environmentBlock.matchAll(/^ {6}([A-Z_][A-Z0-9_]*):/gm)].map((match) => match[1] ?? '');
  const unknown = names.filter((name) => !known.has(name));
  if (names.length === 0 || unknown.length > 0) {
    throw new Error(
      `compose.yaml sets variables parley does not read: ${unknown.join(', ') || '(none found)'}`,
    );
  }
  say(`compose.yaml sets ${names.join(', ')}: all known`);
}

async function main(): Promise<void> {
  const stages = parseDockerfile(readFileSync(join(repositoryRoot, 'Dockerfile'), 'utf8'));
  const problems = shapeProblems(stages);
  if (problems.length > 0)
    throw new Error(`the Dockerfile:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
  say(`shape: ${stages.length} stages on ${stages[0]?.image}, non-root user, volume, health check`);
  const workspace = mkdtempSync(join(tmpdir(), 'parley-image-'));
  chmodSync(workspace, 0o755);
  try {
    const binDirectory = join(workspace, 'shims');
    mkdirSync(binDirectory);
    writeChownShim(binDirectory);
    const done: ReplayedStage[] = [];
    for (const stage of stages) done.push(replayStage(stage, done, workspace, binDirectory));
    const final = done.at(-1);
    if (!final) throw new Error('no stages');
    checkProductionDependencies(final);
    say('node_modules holds no development-only package');
    await startAndAnswer(final, workspace);
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
  lintWithHadolint();
  checkCompose();
  say('ok');
}

main().then(
  () => {
    process.exitCode = 0;
  },
  (error: unknown) => {
    process.stderr.write(`image recipe: FAILED: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
