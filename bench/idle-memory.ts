import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { startFakeDiscord } from '../test/fakes/discord/index.ts';
import { startFakeGateway } from '../test/fakes/gateway/index.ts';
import { appMention, startFakeSlack } from '../test/fakes/slack/index.ts';
import { startChild } from './child-process.ts';
import { benchGatewayApiKey, launchOf } from './contenders.ts';
import { readMemory } from './process-stats.ts';

/**
 * `npm run bench:memory`: parley's idle memory and cold start on each platform, started three ways:
 * as `npm start` does (npm and what it runs: the whole process tree), as `scripts/start.sh` does
 * (each step `exec`s the next: node alone should be left) and as the Docker image does (node).
 * Cold start is from the spawn to the platform's connection (Discord READY against the fake: its
 * session identified; Slack: its Socket Mode connection open) and, for the terminal, to its prompt.
 * Idle is after a first reply (a mention answered) and a settle, `--runs` times, on fresh fakes.
 * Prints markdown tables. With `--modules`, the child also writes which packages it has loaded by
 * then (a module hook, `bench/module-trace.ts`), to see what start-up keeps resident.
 */

const repositoryRoot = resolve(import.meta.dirname, '..');
/**
 * Idle means the bot has had nothing to do for a while: long enough for the idle memory trim's first
 * check (every 5 s, src/operations/idle-memory-trim.ts) to have come after start-up's work. A bot
 * idles for hours; at 3 s this measured start-up's leftovers rather than the idle process.
 */
const settleMs = 8_000;

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    runs: { type: 'string', default: '2' },
    platforms: { type: 'string', default: 'discord,slack,terminal' },
    modules: { type: 'boolean', default: false },
  },
});
const runCount = Number(values.runs);
const platforms = (values.platforms ?? '').split(',').map((part) => part.trim()) as Array<
  'discord' | 'slack' | 'terminal'
>;

/** The ways a person starts parley. */
const startWays = ['node', 'start script', 'npm start'] as const;
type StartWay = (typeof startWays)[number];

const startCommandOf: Record<StartWay, string> = {
  node: '`node bin/parley.ts`',
  'start script': '`scripts/start.sh`',
  'npm start': '`npm start`',
};

interface IdleFigures {
  platform: string;
  how: StartWay;
  /** From the spawn to the platform's connection (READY, the socket open). */
  coldStartMs: number;
  treeRssMiB: number;
  nodeRssMiB: number;
  processes: string;
}

interface TerminalStartFigures {
  how: StartWay;
  /** From the spawn to the terminal's prompt. */
  coldStartMs: number;
  processes: string;
}

const rows: IdleFigures[] = [];
const terminalRows: TerminalStartFigures[] = [];
for (const platform of platforms) {
  for (const how of startWays) {
    for (let run = 0; run < runCount; run += 1) {
      if (platform === 'terminal') {
        const figures = await measureTerminalStart({ how });
        terminalRows.push(figures);
        process.stdout.write(
          `terminal ${how}: prompt after ${figures.coldStartMs.toFixed(0)} ms (${figures.processes})\n`,
        );
        continue;
      }
      const figures = await measureIdle({
        platform,
        how,
        traceModules: values.modules === true && run === 0,
      });
      rows.push(figures);
      process.stdout.write(
        `${platform} ${how}: connected after ${figures.coldStartMs.toFixed(0)} ms; after a first reply, tree ${figures.treeRssMiB.toFixed(0)} MiB, node ${figures.nodeRssMiB.toFixed(0)} MiB (${figures.processes})\n`,
      );
    }
  }
}
process.stdout.write(`\n${renderTable(rows)}\n`);
if (terminalRows.length > 0) process.stdout.write(`\n${renderTerminalTable(terminalRows)}\n`);

/** How each way is spawned: the executable and its arguments (node's when none is named). */
function spawnOf(how: StartWay, nodeArgs: readonly string[]): { executable?: string; args: string[] } {
  if (how === 'node') return { args: [...nodeArgs] };
  if (how === 'start script') return { executable: join(repositoryRoot, 'scripts', 'start.sh'), args: [] };
  return { args: [npmCli(), 'start', '--prefix', repositoryRoot] };
}

async function measureIdle({
  platform,
  how,
  traceModules,
}: {
  platform: 'discord' | 'slack';
  how: StartWay;
  traceModules: boolean;
}): Promise<IdleFigures> {
  const workDirectory = mkdtempSync(join(tmpdir(), `parley-idle-${platform}-`));
  const gateway = await startFakeGateway({ apiKey: benchGatewayApiKey });
  const discord = await startFakeDiscord({ textChannelCount: 2, isCheckingSpecification: false });
  const slack = await startFakeSlack();
  try {
    const launch = launchOf({ contender: 'bot', discord, gateway, workDirectory });
    const environment: Record<string, string> = { ...launch.environment };
    if (platform === 'slack') {
      delete environment.DISCORD_TOKEN;
      delete environment.DISCORD_API_URL;
      delete environment.DISCORD_GUILD_IDS;
      Object.assign(environment, {
        SLACK_BOT_TOKEN: slack.botToken,
        SLACK_APP_TOKEN: slack.appToken,
        SLACK_SIGNING_SECRET: slack.signingSecret,
        SLACK_API_URL: slack.apiUrl,
      });
    }
    const traceOut = join(workDirectory, 'modules.txt');
    if (traceModules) {
      Object.assign(environment, {
        NODE_OPTIONS: `--expose-gc --import=${join(repositoryRoot, 'bench', 'module-trace.ts')}`,
        MODULE_TRACE_OUT: traceOut,
      });
    }
    const spawnedAtMs = performance.now();
    const child = startChild({
      ...spawnOf(how, [...launch.nodeFlags, launch.script]),
      environment,
      workingDirectory: how === 'node' ? workDirectory : repositoryRoot,
      logPath: join(workDirectory, 'child-output.log'),
    });
    try {
      let coldStartMs: number;
      try {
        if (platform === 'discord') {
          await pollUntil(() => discord.identifiedSessionCount === 1, 60_000);
          coldStartMs = performance.now() - spawnedAtMs;
          await launch.waitUntilReady({ child, discord, timeoutMs: 60_000 });
        } else {
          await slack.waitFor(() => slack.openSocketCount() > 0, 60_000);
          coldStartMs = performance.now() - spawnedAtMs;
        }
        await answerFirstMention({ platform, discord, slack });
      } catch (error) {
        process.stderr.write(readFileSync(join(workDirectory, 'child-output.log'), 'utf8'));
        throw error;
      }
      await delay(settleMs + 500);
      const tree = processTree(child.pid);
      if (tree.length === 0) throw new Error('the child is gone');
      // npm's shell names the script too; the node process is the one that runs it.
      const nodeProcess = tree.findLast((entry) => /(^|\/)node\s.*bin\/parley\.ts/.test(entry.command));
      if (traceModules && nodeProcess !== undefined) {
        process.kill(nodeProcess.pid, 'SIGUSR2');
        while (!existsSync(traceOut)) await delay(100);
        await delay(200);
        process.stdout.write(`${platform} ${how}: loaded at idle\n${readFileSync(traceOut, 'utf8')}\n`);
      }
      return {
        platform,
        how,
        coldStartMs,
        treeRssMiB: tree.reduce((sum, entry) => sum + entry.rssBytes, 0) / 2 ** 20,
        nodeRssMiB: (nodeProcess?.rssBytes ?? 0) / 2 ** 20,
        processes: tree.map((entry) => `${entry.name} ${(entry.rssBytes / 2 ** 20).toFixed(0)}`).join(', '),
      };
    } finally {
      // Under `npm start` the child is npm: its shell and node would outlive it (orphans that kept
      // running after the bench, idle parleys on dead fakes), so the tree is stopped from the leaves.
      for (const entry of processTree(child.pid).reverse()) {
        if (entry.pid === child.pid) continue;
        try {
          process.kill(entry.pid, 'SIGTERM');
        } catch {
          // Already gone.
        }
      }
      await child.stop(15_000);
    }
  } finally {
    await slack.close();
    await discord.close();
    await gateway.close();
    rmSync(workDirectory, { recursive: true, force: true });
  }
}

/**
 * A first reply, so that idle is what a bot that has answered keeps (its reply path loaded), as a
 * running bot is: a mention, answered by the fake gateway's default reply, waited for.
 */
async function answerFirstMention({
  platform,
  discord,
  slack,
}: {
  platform: 'discord' | 'slack';
  discord: Awaited<ReturnType<typeof startFakeDiscord>>;
  slack: Awaited<ReturnType<typeof startFakeSlack>>;
}): Promise<void> {
  if (platform === 'discord') {
    const channelId = discord.textChannelIds[0] ?? '';
    discord.sendUserMessage({ channelId, content: 'hello', mentionsBot: true });
    await pollUntil(
      () => discord.messages(channelId).some((message) => message.author.id === discord.bot.id),
      30_000,
    );
    return;
  }
  const mention = appMention({ channel: 'C0IDLE0001', text: 'hello' });
  await slack.deliverEvent({ event: mention, mode: 'socket' });
  await slack.waitFor(
    () => slack.messages('C0IDLE0001', String(mention.ts)).some((message) => message.botId !== undefined),
    30_000,
  );
}

async function pollUntil(isDone: () => boolean, timeoutMs: number): Promise<void> {
  const deadlineMs = Date.now() + timeoutMs;
  while (!isDone()) {
    if (Date.now() > deadlineMs) throw new Error(`not done within ${timeoutMs} ms`);
    await delay(10);
  }
}

/**
 * The terminal's cold start: from the spawn to its prompt, in a pseudo-terminal (`script`), since
 * the terminal chat greets and prompts only when it talks to a person. No platform is configured.
 */
async function measureTerminalStart({ how }: { how: StartWay }): Promise<TerminalStartFigures> {
  const workDirectory = mkdtempSync(join(tmpdir(), 'parley-cold-terminal-'));
  const gateway = await startFakeGateway({ apiKey: benchGatewayApiKey });
  try {
    const discord = { token: '', apiUrl: '', guildId: '' } as unknown as Parameters<
      typeof launchOf
    >[0]['discord'];
    const launch = launchOf({ contender: 'bot', discord, gateway, workDirectory });
    const environment: Record<string, string> = { ...launch.environment };
    delete environment.DISCORD_TOKEN;
    delete environment.DISCORD_API_URL;
    delete environment.DISCORD_GUILD_IDS;
    const spawned = spawnOf(how, [...launch.nodeFlags, launch.script]);
    const command = [spawned.executable ?? process.execPath, ...spawned.args].map(shellQuoted).join(' ');
    const logPath = join(workDirectory, 'child-output.log');
    const spawnedAtMs = performance.now();
    const child = startChild({
      executable: 'script',
      args: ['--quiet', '--flush', '--command', command, '/dev/null'],
      environment: { ...environment, TERM: 'dumb' },
      workingDirectory: how === 'node' ? workDirectory : repositoryRoot,
      logPath,
    });
    try {
      await pollUntil(
        () => existsSync(logPath) && readFileSync(logPath, 'utf8').includes('type /help for commands'),
        60_000,
      ).catch((error: unknown) => {
        process.stderr.write(readFileSync(logPath, 'utf8'));
        throw error;
      });
      const coldStartMs = performance.now() - spawnedAtMs;
      // Less `script` and the shell it runs the command in: the pseudo-terminal, not the start.
      const tree = processTree(child.pid).slice(2);
      return {
        how,
        coldStartMs,
        processes: tree.map((entry) => `${entry.name} ${(entry.rssBytes / 2 ** 20).toFixed(0)}`).join(', '),
      };
    } finally {
      for (const entry of processTree(child.pid).reverse()) {
        if (entry.pid === child.pid) continue;
        try {
          process.kill(entry.pid, 'SIGTERM');
        } catch {
          // Already gone.
        }
      }
      await child.stop(15_000);
    }
  } finally {
    await gateway.close();
    rmSync(workDirectory, { recursive: true, force: true });
  }
}

function shellQuoted(word: string): string {
  return `'${word.replaceAll("'", "'\\''")}'`;
}

/** npm's own script: the one running this bench, or the `npm` on PATH. */
function npmCli(): string {
  if (process.env.npm_execpath) return process.env.npm_execpath;
  for (const folder of (process.env.PATH ?? '').split(':')) {
    const candidate = join(folder, 'npm');
    if (existsSync(candidate)) return realpathSync(candidate);
  }
  throw new Error('npm is not on PATH');
}

interface TreeEntry {
  pid: number;
  name: string;
  command: string;
  rssBytes: number;
}

/** The process and every descendant, from /proc. */
function processTree(rootPid: number): TreeEntry[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parents.set(Number(entry), Number(fields[1]));
    } catch {
      // Gone meanwhile.
    }
  }
  const pids = [rootPid];
  for (let index = 0; index < pids.length; index += 1) {
    for (const [pid, parent] of parents) if (parent === pids[index]) pids.push(pid);
  }
  return pids.flatMap((pid) => {
    try {
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
      const name = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      return [{ pid, name, command, rssBytes: readMemory(pid).rssBytes }];
    } catch {
      return [];
    }
  });
}

function renderTable(figures: readonly IdleFigures[]): string {
  const header =
    '| platform | started as | cold start to connected (ms) | whole tree RSS after a first reply (MiB) | node process RSS (MiB) | processes (RSS MiB) |';
  const lines = figures.map(
    (row) =>
      `| ${row.platform} | ${startCommandOf[row.how]} | ${row.coldStartMs.toFixed(0)} | ${row.treeRssMiB.toFixed(0)} | ${row.nodeRssMiB.toFixed(0)} | ${row.processes} |`,
  );
  return [header, '|---|---|--:|--:|--:|---|', ...lines].join('\n');
}

function renderTerminalTable(figures: readonly TerminalStartFigures[]): string {
  const header =
    '| terminal, started as | cold start to the prompt (ms) | processes at the prompt (RSS MiB) |';
  const lines = figures.map(
    (row) => `| ${startCommandOf[row.how]} | ${row.coldStartMs.toFixed(0)} | ${row.processes} |`,
  );
  return [header, '|---|--:|---|', ...lines].join('\n');
}
// A fake's keep-alive socket can outlive its close by a while; the measurement is done.
process.exit(0);
