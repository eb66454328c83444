import { userInfo } from 'node:os';
import { runConsoleAdapter } from '../adapters/console/console-adapter.ts';
import { createCommandServices } from '../commands/command-services.ts';
import { createApp } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';
import { createLogger, scrubSecrets } from './log.ts';

/**
 * Process entry and the one place that picks adapters (the composition root may import them; the rest
 * of src/ may not). With no Discord or Slack credentials configured, the terminal chat runs.
 */
async function main(): Promise<number> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      return 1;
    }
    throw error;
  }
  // In the terminal the chat owns the screen, so logs go to a file unless LOG_FILE says otherwise.
  const logFile = config.log.file ?? 'data/parley.log';
  const logger = createLogger({ log: { ...config.log, file: logFile }, secrets: config.secrets });
  const app = createApp({ config, logger });
  logger.info(
    { chatModel: config.models.chat, store: config.storeUrl.replace(/\/\/[^@/]*@/, '//') },
    'parley starting (console)',
  );

  const shutdown = async (signal: string) => {
    logger.info({ signal }, 'shutting down');
    await app.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));

  const isInteractive = process.stdin.isTTY === true && process.stdout.isTTY === true;
  if (isInteractive) process.stdout.write(`(logs: ${logFile})\n`);
  const services = createCommandServices({ app });
  await runConsoleAdapter({
    services,
    input: process.stdin,
    output: process.stdout,
    userName: userInfo().username,
    outputDirectory: config.images.outputDirectory,
    isInteractive,
  });
  await services.close();
  await app.close();
  return 0;
}

main().then(
  (exitCode) => {
    process.exitCode = exitCode;
  },
  (error: unknown) => {
    process.stderr.write(
      `parley stopped: ${scrubSecrets(error instanceof Error ? error.message : String(error), [])}\n`,
    );
    process.exitCode = 1;
  },
);
