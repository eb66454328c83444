import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { startFakeDiscord } from '../test/fakes/discord/index.ts';
import { startFakeGateway } from '../test/fakes/gateway/index.ts';
import { startFakeSlack } from '../test/fakes/slack/index.ts';
import { startChild } from './child-process.ts';
import { benchGatewayApiKey, launchOf } from './contenders.ts';
import { readMemory } from './process-stats.ts';

/**
 * `npm run bench:memory`: parley's idle memory on each platform, started two ways: as `npm start`
 * does (npm, its shell, scripts/node22.sh and node: the whole process tree) and as the Docker image
 * does (node alone). Each is measured once it is ready and has settled, `--runs` times, on fresh
 * fakes. Prints one markdown table. With `--modules`, the child also writes which packages it has
 * loaded by then (a module hook, `bench/module-trace.ts`), to see what start-up keeps resident.
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
    platforms: { type: 'string', default: 'discord,slack' },
    modules: { type: 'boolean', default: false },
  },
});
const runCount = Number(values.runs);
const platforms = (values.platforms ?? '').split(',').map((part) => part.trim()) as Array<
  'discord' | 'slack'
>;

interface IdleFigures {
  platform: string;
  how: 'npm start' | 'node';
  treeRssMiB: number;
  nodeRssMiB: number;
  processes: string;
}

const rows: IdleFigures[] = [];
for (const platform of platforms) {
  for (const how of ['node', 'npm start'] as const) {
    for (let run = 0; run < runCount; run += 1) {
      const figures = await measureIdle({
        platform,
        how,
        traceModules: values.modules === true && run === 0,
      });
      rows.push(figures);
      process.stdout.write(
        `${platform} ${how}: tree ${figures.treeRssMiB.toFixed(0)} MiB, node ${figures.nodeRssMiB.toFixed(0)} MiB (${figures.processes})\n`,
      );
    }
  }
}
process.stdout.write(`\n${renderTable(rows)}\n`);

async function measureIdle({
  platform,
  how,
  traceModules,
}: {
  platform: 'discord' | 'slack';
  how: 'npm start' | 'node';
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
    const child =
      how === 'node'
        ? startChild({
            args: [...launch.nodeFlags, launch.script],
            environment,
            workingDirectory: workDirectory,
            logPath: join(workDirectory, 'child-output.log'),
          })
        : startChild({
            args: [npmCli(), 'start', '--prefix', repositoryRoot],
            environment,
            workingDirectory: repositoryRoot,
            logPath: join(workDirectory, 'child-output.log'),
          });
    try {
      try {
        if (platform === 'discord') {
          await launch.waitUntilReady({ child, discord, timeoutMs: 60_000 });
        } else {
          await slack.waitFor(() => slack.openSocketCount() > 0, 60_000);
        }
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
    '| platform | started as | whole tree RSS (MiB) | node process RSS (MiB) | processes (RSS MiB) |';
  const lines = figures.map(
    (row) =>
      `| ${row.platform} | ${row.how === 'node' ? '`node bin/parley.ts`' : '`npm start`'} | ${row.treeRssMiB.toFixed(0)} | ${row.nodeRssMiB.toFixed(0)} | ${row.processes} |`,
  );
  return [header, '|---|---|--:|--:|---|', ...lines].join('\n');
}
// A fake's keep-alive socket can outlive its close by a while; the measurement is done.
process.exit(0);
