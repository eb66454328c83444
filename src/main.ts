import { userInfo } from 'node:os';
import { runConsoleAdapter } from '../adapters/console/console-adapter.ts';
import { startDiscordAdapter } from '../adapters/discord/discord-adapter.ts';
import { startSlackAdapter } from '../adapters/slack/slack-adapter.ts';
import { createCommandServices } from '../commands/command-services.ts';
import { createApp } from './app.ts';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { createLogger, type Logger, scrubSecrets } from './log.ts';

/** How long a clean end may take to let go of its last handles before the process exits anyway. */
const lingerAfterEndMs = 200;

/**
 * Process entry and the one place that picks adapters (the composition root may import them; the rest
 * of src/ may not). With Discord or Slack credentials configured, the bot runs there; with none, the
 * terminal chat runs.
 */
async function main(): Promise<number> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      return 1;
    }
    throw error;
  }
  const isConsole = !config.discord && !config.slack;
  // In the terminal the chat owns the screen, so logs go to a file unless LOG_FILE says otherwise.
  const logFile = config.log.file ?? (isConsole ? 'data/parley.log' : undefined);
  const logger = createLogger({ log: { ...config.log, file: logFile }, secrets: config.secrets });
  const app = createApp({ config, logger });
  const services = createCommandServices({ app });
  const closeAll = async () => {
    // Stopped replies get half the grace to write their last words and be recorded.
    await services.activeReplies.stopAll(config.shutdownGraceMs / 2);
    await services.close();
    await app.close();
  };

  if (isConsole) {
    logger.info({ chatModel: config.models.chat }, 'parley starting (terminal)');
    const isInteractive = process.stdin.isTTY === true && process.stdout.isTTY === true;
    if (isInteractive) process.stdout.write(`(logs: ${logFile})\n`);
    await runConsoleAdapter({
      services,
      input: process.stdin,
      output: process.stdout,
      userName: userInfo().username,
      outputDirectory: config.images.outputDirectory,
      isInteractive,
    });
    await closeAll();
    return 0;
  }
  return runPlatforms({ config, logger, services, closeAll });
}

async function runPlatforms({
  config,
  logger,
  services,
  closeAll,
}: {
  config: Config;
  logger: Logger;
  services: ReturnType<typeof createCommandServices>;
  closeAll: () => Promise<void>;
}): Promise<number> {
  const stops: Array<() => Promise<void>> = [];
  if (config.discord) {
    const discord = await startDiscordAdapter({
      services,
      discord: config.discord,
      maxImageBytes: config.images.maxInputBytes,
      logger,
    });
    stops.push(() => discord.stop());
  }
  if (config.slack) {
    const slack = await startSlackAdapter({
      services,
      slack: config.slack,
      maxImageBytes: config.images.maxInputBytes,
      logger,
    });
    stops.push(() => slack.stop());
  }
  logger.info(
    { platforms: [config.discord && 'discord', config.slack && 'slack'].filter(Boolean) },
    'parley running',
  );
  const signal = await new Promise<string>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  logger.info({ signal }, 'shutting down: no new messages; stopping replies in progress');
  // A platform client stuck reconnecting, or a store that does not answer, must not keep the process
  // alive: a supervisor waiting for it to exit would wait forever.
  const deadline = setTimeout(() => {
    logger.error(
      { shutdownGraceMs: config.shutdownGraceMs },
      'shutdown did not finish within SHUTDOWN_GRACE_MS; forcing the exit',
    );
    process.exit(1);
  }, config.shutdownGraceMs);
  deadline.unref();
  await Promise.allSettled(stops.map((stop) => stop()));
  await closeAll();
  logger.info('stopped');
  return 0;
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
