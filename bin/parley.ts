import { fstatSync } from 'node:fs';
import { createCommandServices } from '../commands/command-services.ts';
import type { PlatformAdapter, RunningPlatform } from '../commands/platform-adapter.ts';
import { startScheduledRuns } from '../commands/scheduled-run.ts';
import { createApp } from '../src/app.ts';
import { ConfigError, resolveFromProjectRoot } from '../src/config.ts';
import { createConnectRoutes } from '../src/connectors/connect-routes.ts';
import type { RunningConsole } from '../src/console/console-server.ts';
import { finishOrCutReplies } from '../src/conversation/finish-or-cut-replies.ts';
import { checkGateway } from '../src/gateway/gateway-check.ts';
import { createLogger, type Logger, scrubSecrets } from '../src/log.ts';
import { keepCompiledModules } from '../src/operations/compile-cache.ts';
import { checkReadiness } from '../src/operations/health.ts';
import { type ExtraRoute, startHealthServer } from '../src/operations/health-server.ts';
import { startIdleMemoryTrim } from '../src/operations/idle-memory-trim.ts';
import { unwritableFileProblems, type WritableFile } from '../src/operations/writable-paths.ts';
import { shutDownWithin, shutdownShares } from '../src/shut-down.ts';
import type { Coordination } from '../src/state/coordination.ts';
import type { Store } from '../src/state/create-store.ts';
import { parseStoreUrl } from '../src/state/store-url.ts';
import { startTracing } from '../src/tracing/start-tracing.ts';
import { reportTracingProblems } from '../src/tracing/tracing-diagnostics.ts';
import {
  loadParleyConfig,
  type ParleyConfig,
  platformAdapters,
  terminalAdapter,
} from './platform-adapters.ts';

const usage = `usage: npm start            (or: node --expose-gc bin/parley.ts, on Node.js 22.18 or newer)

parley reads its settings from the environment and from .env in the project folder:
  GATEWAY_BASE_URL, GATEWAY_API_KEY   required: the Model Gateway (try: npm run fake-gateway)
  DISCORD_TOKEN                       runs it on Discord (docs/discord.md)
  SLACK_BOT_TOKEN, SLACK_APP_TOKEN    runs it on Slack (docs/slack.md)
With neither platform, it is a chat in this terminal. Every variable: docs/configuration.md.
`;

/** How long the start-up check of the gateway may take before start-up goes on with a warning. */
const gatewayCheckTimeoutMs = 3_000;

/** How long a clean end may take to let go of its last handles before the process exits anyway. */
const lingerAfterEndMs = 200;

/**
 * Process entry and composition root: reads the configuration, builds the core and the commands, and
 * starts every platform whose variables are set; with none, the terminal chat runs.
 */
async function main(): Promise<number> {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(usage);
    return 0;
  }
  if (args.length > 0) {
    process.stderr.write(
      `parley takes no arguments (got ${args.join(' ')}); it reads its settings from the environment and .env.\n${usage}`,
    );
    return 2;
  }
  let config: ParleyConfig;
  try {
    config = loadParleyConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      return 1;
    }
    throw error;
  }
  for (const warning of config.warnings) process.stderr.write(`parley: warning: ${warning}\n`);
  const platforms = configuredPlatforms(config);
  const isConsole = platforms.length === 0;
  if (isConsole && !hasInputToChat()) {
    // Under a supervisor (compose, systemd) the terminal chat would read an empty input and end at
    // once: a silent restart loop. Piped input (a file, a pipe) is still a chat, one line a message.
    process.stderr.write(
      'parley cannot start: no platform is configured and standard input is not a terminal. Set DISCORD_TOKEN or the SLACK_ variables (docs/discord.md, docs/slack.md), or run it in a terminal for the terminal chat.\n',
    );
    return 1;
  }
  // In the terminal the chat owns the screen, so logs go to a file unless LOG_FILE says otherwise.
  const logFile = config.log.file ?? (isConsole ? resolveFromProjectRoot('data/parley.log') : undefined);
  const unwritable = unwritableFileProblems(filesToWrite({ config, logFile }));
  if (unwritable.length > 0) {
    process.stderr.write(unwritable.map((problem) => `parley cannot start: ${problem}\n`).join(''));
    return 1;
  }
  // After the local checks, which need no network: what is wrong here is said first.
  const gatewayCheck = await checkGateway({
    baseUrl: config.gateway.baseUrl,
    apiKey: config.gateway.apiKey,
    model: config.models.chat,
    timeoutMs: gatewayCheckTimeoutMs,
  });
  if (gatewayCheck.kind !== 'ok') {
    const line = scrubSecrets(gatewayCheck.message, config.secrets);
    if (gatewayCheck.kind === 'fatal') {
      process.stderr.write(`parley cannot start: ${line}\n`);
      return 1;
    }
    process.stderr.write(`parley: warning: ${line}\n`);
  }
  // Before anything that makes a span; without an endpoint the SDK is never loaded.
  const tracing = config.tracing
    ? await startTracing({ tracing: config.tracing, secrets: config.secrets })
    : undefined;
  const logger = createLogger({
    log: { ...config.log, file: logFile },
    secrets: config.secrets,
    isTraced: tracing !== undefined,
  });
  for (const warning of config.warnings) logger.warn(warning);
  if (tracing) reportTracingProblems(logger);
  const app = createApp({ config, logger });
  const storeProblem = await unreachableStoreProblem({ config, probeStore: app.probeStore });
  if (storeProblem !== undefined) {
    process.stderr.write(`parley cannot start: ${storeProblem}\n`);
    logger.error({ problem: storeProblem }, 'the store cannot be reached at start');
    await app.close().catch(() => {});
    return 1;
  }
  const services = createCommandServices({ app });
  // Hourly; with several processes on one Redis, one of them sweeps each hour.
  app.retention.start();
  const closeAll = async () => {
    await finishOrCutReplies({ ...services, ...shutdownShares(config.shutdownGraceMs) });
    await services.close();
    await app.close();
    // Last, so the spans of the replies finished or cut above are sent (within a few seconds).
    await tracing?.stop();
  };
  const platformNames = platforms.map(({ adapter }) => adapter.name);
  const routes = app.connectors ? [createConnectRoutes({ connectors: app.connectors, logger })] : [];
  if (!(await startHealth({ config, platformNames, logger, probeStore: app.probeStore, routes }))) {
    await closeAll();
    return 1;
  }
  const webConsole = await startWebConsole({
    config,
    app,
    services,
    logger,
    readiness: () => checkReadiness({ platforms: platformNames, probeStore: app.probeStore }),
  });
  if (webConsole === 'failed') {
    await closeAll();
    return 1;
  }

  if (isConsole) {
    logger.info({ chatModel: config.models.chat }, 'parley starting (terminal)');
    const isInteractive = process.stdin.isTTY === true && process.stdout.isTTY === true;
    if (isInteractive) process.stdout.write(`(logs: ${logFile})\n`);
    // The terminal's fragment always has settings (its variables have defaults); undefined would be a bug.
    const settings = config.platforms.console;
    if (settings === undefined) throw new Error('the terminal chat has no settings');
    const terminal = await terminalAdapter.start({
      services,
      settings,
      config,
      logger,
      coordination: app.coordination,
      store: app.store,
    });
    await startScheduledRuns({ services, replyMaxTokens: config.history.replyMaxTokens });
    keepCompiledModules();
    await terminal.ended;
    await webConsole?.close();
    await closeAll();
    return 0;
  }
  return runPlatforms({
    config,
    platforms,
    logger,
    services,
    closeAll: async () => {
      await webConsole?.close();
      await closeAll();
    },
    coordination: app.coordination,
    store: app.store,
  });
}

/** Standard input is a terminal, a pipe, a file or a socket: something the terminal chat can read. */
function hasInputToChat(): boolean {
  if (process.stdin.isTTY === true) return true;
  try {
    const input = fstatSync(0);
    return input.isFIFO() || input.isFile() || input.isSocket();
  } catch {
    // No standard input at all (closed).
    return false;
  }
}

/** A platform whose variables are set, with what they said. */
interface ConfiguredPlatform {
  readonly adapter: PlatformAdapter<unknown>;
  readonly settings: unknown;
}

function configuredPlatforms(config: ParleyConfig): ConfiguredPlatform[] {
  const settingsByName: Readonly<Record<string, unknown>> = config.platforms;
  return platformAdapters.flatMap((adapter) => {
    const settings = settingsByName[adapter.name];
    return settings === undefined ? [] : [{ adapter, settings }];
  });
}

async function runPlatforms({
  config,
  platforms,
  logger,
  services,
  closeAll,
  coordination,
  store,
}: {
  config: ParleyConfig;
  platforms: readonly ConfiguredPlatform[];
  logger: Logger;
  services: ReturnType<typeof createCommandServices>;
  closeAll: () => Promise<void>;
  coordination: Coordination;
  store: Store;
}): Promise<number> {
  const running: RunningPlatform[] = [];
  for (const { adapter, settings } of platforms) {
    running.push(await adapter.start({ services, settings, config, logger, coordination, store }));
  }
  await startScheduledRuns({ services, replyMaxTokens: config.history.replyMaxTokens });
  // Listening before saying so: whoever reads "parley running" and signals at once (a supervisor, a
  // test) must never meet Node's default, which ends the process without a shutdown.
  const signalled = new Promise<string>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  logger.info({ platforms: platforms.map(({ adapter }) => adapter.name) }, 'parley running');
  keepCompiledModules();
  const memoryTrim = startIdleMemoryTrim({ logger });
  const signal = await signalled;
  memoryTrim.stop();
  logger.info(
    { signal },
    'shutting down: no new messages; replies in progress may finish, then are cut with a note',
  );
  await shutDownWithin({
    graceMs: config.shutdownGraceMs,
    steps: [() => Promise.allSettled(running.map((platform) => platform.stop())), closeAll],
    logger,
    forceExit: (exitCode) => process.exit(exitCode),
  });
  logger.info('stopped');
  return 0;
}

// The files start-up writes, checked first so that a read-only folder is one clear line, not a crash.
function filesToWrite({
  config,
  logFile,
}: {
  config: ParleyConfig;
  logFile: string | undefined;
}): WritableFile[] {
  const files: WritableFile[] = [];
  if (logFile) {
    files.push({
      path: logFile,
      what: config.log.file ? 'LOG_FILE' : 'the log file',
      remedy: 'Set LOG_FILE to a writable place.',
    });
  }
  const store = parseStoreUrl({ storeUrl: config.storeUrl });
  if (store.kind === 'sqlite') {
    files.push({
      path: store.filePath,
      what: 'STORE_URL (the SQLite file)',
      remedy: 'Make its folder writable (in a container, mount a volume there) or set STORE_URL.',
    });
  }
  return files;
}

// A store that does not answer at start is a wrong STORE_URL or a server not running: one line now,
// rather than every message waiting for it and then saying it cannot reach its memory.
async function unreachableStoreProblem({
  config,
  probeStore,
}: {
  config: ParleyConfig;
  probeStore: () => Promise<unknown>;
}): Promise<string | undefined> {
  try {
    await probeStore();
    return undefined;
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    const code = (error as NodeJS.ErrnoException).code ?? cause?.code;
    const reason =
      code === 'ECONNREFUSED'
        ? 'the connection was refused (nothing listens there)'
        : code === 'ENOTFOUND'
          ? 'its host name was not found (DNS)'
          : /failed to connect|ECONNREFUSED|connect/i.test((error as Error).message)
            ? 'the connection failed (nothing answers there)'
            : scrubSecrets((error as Error).message.replace(/\.+$/, ''), config.secrets);
    return `STORE_URL ${withoutCredentials(config.storeUrl)} cannot be reached: ${reason}. Start the store, or set STORE_URL to one that runs.`;
  }
}

function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}

// The owner's console (issue 35), off unless CONSOLE_PORT is set; loaded only then.
async function startWebConsole({
  config,
  app,
  services,
  logger,
  readiness,
}: {
  /** The same readiness GET /readyz answers, for the console's overview. */
  readiness: () => ReturnType<typeof checkReadiness>;
  config: ParleyConfig;
  app: ReturnType<typeof createApp>;
  services: ReturnType<typeof createCommandServices>;
  logger: Logger;
}): Promise<RunningConsole | undefined | 'failed'> {
  const settings = config.console;
  const desk = services.consoleLinks;
  if (settings === undefined || desk === undefined) return undefined;
  const { startConsoleServer, ConsoleStartError } = await import('../src/console/console-server.ts');
  const { createConsoleDeeds } = await import('../commands/console-deeds.ts');
  try {
    const running = await startConsoleServer({
      settings,
      store: app.store,
      links: desk.links,
      deeds: createConsoleDeeds(services),
      access: app.access,
      places: app.places,
      audit: app.audit,
      logger,
      readiness,
    });
    desk.open(running.origin);
    return {
      ...running,
      close: async () => {
        desk.close();
        await running.close();
      },
    };
  } catch (error) {
    if (!(error instanceof ConsoleStartError)) throw error;
    process.stderr.write(`parley cannot start: ${error.message}.\n`);
    return 'failed';
  }
}

// Off unless HEALTH_PORT or a platform run turns it on. It never keeps the process alive by itself.
async function startHealth({
  config,
  platformNames,
  logger,
  probeStore,
  routes,
}: {
  config: ParleyConfig;
  platformNames: readonly string[];
  logger: Logger;
  /** The connectors' Connect links and OAuth callback, served at PUBLIC_URL. */
  routes: readonly ExtraRoute[];
  probeStore: () => Promise<unknown>;
}): Promise<boolean> {
  if (config.health.port === undefined) {
    if (routes.length > 0) {
      logger.warn(
        'the tools file has connectors, but HEALTH_PORT is off: their Connect links and OAuth callback (PUBLIC_URL) have no server; set HEALTH_PORT',
      );
    }
    return true;
  }
  try {
    const server = await startHealthServer({
      port: config.health.port,
      host: config.health.host,
      readiness: () => checkReadiness({ platforms: platformNames, probeStore }),
      logger,
      routes,
    });
    server.unref();
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    process.stderr.write(
      `parley cannot start: health server on HEALTH_HOST ${config.health.host}, HEALTH_PORT ${config.health.port}: ${listenProblem(code, error)}.\n`,
    );
    return false;
  }
}

function listenProblem(code: string | undefined, error: unknown): string {
  if (code === 'EADDRINUSE') return 'the port is in use. Set HEALTH_PORT to a free port, or off';
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
    return 'this machine has no such address. Set HEALTH_HOST to one of its addresses, 127.0.0.1 or 0.0.0.0';
  }
  return (error as Error).message;
}

main().then(
  (exitCode) => {
    process.exitCode = exitCode;
    // Normally nothing is left and the process ends by itself; a library that keeps a timer or a
    // socket after being closed (a client that was reconnecting) must not keep it running.
    setTimeout(() => process.exit(exitCode), lingerAfterEndMs).unref();
  },
  (error: unknown) => {
    process.stderr.write(
      `parley stopped: ${scrubSecrets(error instanceof Error ? error.message : String(error), [])}\n`,
    );
    process.exitCode = 1;
  },
);
