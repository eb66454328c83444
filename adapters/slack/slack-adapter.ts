import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, webApi } from '@slack/bolt';
import type { CommandServices } from '../../commands/define-command.ts';
import type { Config } from '../../src/config.ts';
import type { Logger } from '../../src/log.ts';
import { countPlatformRequests } from '../../src/operations/count-platform-requests.ts';
import { reportPlatformConnection } from '../../src/operations/health.ts';
import { createInMemoryDeduper, type Deduper } from '../../src/state/dedupe.ts';
import { registerActions } from './action-handlers.ts';
import type { SlackAdapterContext } from './adapter-context.ts';
import { createBoltLogger } from './bolt-logger.ts';
import { createCallBudget } from './call-budget.ts';
import { registerChatEvents } from './chat-events.ts';
import { registerCommands } from './command-handlers.ts';
import { slackErrorCodeOf } from './slack-errors.ts';
import { createUserDirectory } from './user-directory.ts';
import { createWorkspaceFeatures } from './workspace-features.ts';

export interface StartSlackAdapterOptions {
  readonly services: CommandServices;
  readonly slack: NonNullable<Config['slack']>;
  readonly logger: Logger;
  /** Largest image a person may share, in bytes. */
  readonly maxImageBytes: number;
  /** The interface HTTP mode listens on; default all of them. */
  readonly host?: string;
  /** Shared with other bot processes (Redis) so that only one answers a redelivered event. */
  readonly deduper?: Deduper;
  /** How long a native stream runs before the person gets a private Stop button. Default 2,500 ms. */
  readonly stopButtonDelayMs?: number;
}

/** A running Slack adapter. */
export interface SlackAdapter {
  readonly app: App;
  /** The port HTTP mode listens on (the real one when `slack.port` is 0); undefined in Socket Mode. */
  readonly port: number | undefined;
  stop(): Promise<void>;
}

/**
 * The WebClient's retries: a 429 waits for its `Retry-After` and is tried again, a few times. Bolt's
 * default would retry for half an hour, long after the person stopped waiting.
 */
const retryConfig = { retries: 3, factor: 2, minTimeout: 100, maxTimeout: 2_000 };

/**
 * Starts parley on Slack with a real Bolt app: over Socket Mode when `slack.appToken` is set (no
 * public URL needed), else over HTTP with events, commands and interactivity at
 * `POST /slack/events` on `slack.port`, signed requests only. Resolves once it is connected or
 * listening; rejects when Slack refuses the bot token.
 */
export async function startSlackAdapter({
  services,
  slack,
  logger,
  maxImageBytes,
  host,
  deduper = createInMemoryDeduper(),
  stopButtonDelayMs = 2_500,
}: StartSlackAdapterOptions): Promise<SlackAdapter> {
  const adapterLogger = logger.child({ adapter: 'slack' });
  const boltLogger = createBoltLogger(adapterLogger);
  const clientOptions = {
    slackApiUrl: slack.apiUrl,
    retryConfig,
    timeout: 30_000,
    logger: boltLogger,
    // Every Web API call and 429, by method, for /metrics (uploads go to a URL that holds a token).
    fetch: countPlatformRequests({
      platform: 'slack',
      routeClassOf: (url) => /\/api\/([\w.]+)$/.exec(url.pathname)?.[1] ?? 'file-upload',
    }),
  };
  const identity = await identify({ token: slack.botToken, clientOptions });
  adapterLogger.info(
    { teamId: identity.teamId, botUserId: identity.botUserId, mode: slack.appToken ? 'socket' : 'http' },
    'slack: bot token accepted',
  );

  const common = {
    token: slack.botToken,
    botId: identity.botId,
    botUserId: identity.botUserId,
    // identify() has just checked the token; Bolt need not call auth.test again.
    tokenVerificationEnabled: false,
    logger: boltLogger,
    clientOptions,
    convoStore: false as const,
  };
  const app = slack.appToken
    ? new App({ ...common, appToken: slack.appToken, socketMode: true })
    : new App({ ...common, signingSecret: slack.signingSecret });
  app.error(async (error) => {
    adapterLogger.error({ err: error }, 'slack: a listener failed');
  });

  const adapter: SlackAdapterContext = {
    services,
    delivery: {
      features: createWorkspaceFeatures(),
      budget: createCallBudget(),
      logger: adapterLogger,
      stopButtonDelayMs,
    },
    directory: createUserDirectory({ logger: adapterLogger }),
    deduper,
    botToken: slack.botToken,
    commandPrefix: slack.commandPrefix,
    isReplyingToBots: slack.isReplyingToBots,
    maxImageBytes,
    logger: adapterLogger,
  };
  registerChatEvents({ app, adapter });
  registerCommands({ app, adapter });
  registerActions({ app, adapter });

  if (slack.appToken) {
    await app.start();
    adapterLogger.info('slack: connected over Socket Mode');
    reportPlatformConnection({ platform: 'slack', isConnected: true, state: 'connected over Socket Mode' });
    return { app, port: undefined, stop: () => stopApp(app) };
  }
  const server = (await app.start({ port: slack.port, ...(host ? { host } : {}) })) as Server;
  const { port } = server.address() as AddressInfo;
  adapterLogger.info({ port }, 'slack: listening for events at POST /slack/events');
  reportPlatformConnection({ platform: 'slack', isConnected: true, state: `listening on port ${port}` });
  return { app, port, stop: () => stopApp(app) };
}

async function identify({
  token,
  clientOptions,
}: {
  token: string;
  clientOptions: webApi.WebClientOptions;
}): Promise<{ teamId: string | undefined; botUserId: string; botId: string }> {
  try {
    const result = await new webApi.WebClient(token, clientOptions).auth.test();
    if (typeof result.user_id !== 'string' || typeof result.bot_id !== 'string') {
      throw new Error('auth.test did not name a bot user: is SLACK_BOT_TOKEN a bot token (xoxb-)?');
    }
    return { teamId: result.team_id, botUserId: result.user_id, botId: result.bot_id };
  } catch (error) {
    const code = slackErrorCodeOf(error);
    if (code === undefined) throw error;
    throw new Error(`Slack refused SLACK_BOT_TOKEN (${code}): check the Bot User OAuth Token of the app`, {
      cause: error,
    });
  }
}

async function stopApp(app: App): Promise<void> {
  await app.stop();
  reportPlatformConnection({ platform: 'slack', isConnected: false, state: 'stopped' });
}
