import { createMethodPauses } from '../../adapters/slack/method-pauses.ts';
import { type SlackAdapter, startSlackAdapter } from '../../adapters/slack/slack-adapter.ts';
import { createSlackOutbound } from '../../adapters/slack/slack-outbound.ts';
import type { CommandServices } from '../../commands/define-command.ts';
import type { App } from '../../src/app.ts';
import { type FakeGateway, startFakeGateway } from '../fakes/gateway/index.ts';
import {
  type FakeSlack,
  type FakeSlackOptions,
  type InteractionPayload,
  type SlackEvent,
  type SlashCommandPayload,
  startFakeSlack,
} from '../fakes/slack/index.ts';
import { createManualScheduling, type ManualScheduling } from '../support/manual-scheduling.ts';
import { buildTestBot } from '../support/test-bot.ts';

export type SlackMode = 'http' | 'socket';

/** The whole bot as `npm start` would run it on Slack, against the fake Slack and the fake gateway. */
export interface SlackUnderTest {
  readonly mode: SlackMode;
  readonly slack: FakeSlack;
  readonly gateway: FakeGateway;
  readonly app: App;
  readonly services: CommandServices;
  readonly adapter: SlackAdapter;
  /** Schedules on a clock the test moves, when asked for (`scheduleClockStartMs`). */
  readonly scheduling: ManualScheduling | undefined;
  readonly logOutput: () => string;
  /** Where the adapter keeps OAuth installations (a namespace of the bot's store). */
  readonly installationKeyv: ReturnType<App['store']['namespace']>;
  /** Delivers an event in this mode; extra options (retries, forged signatures) go to the fake. */
  deliverEvent(event: SlackEvent, options?: Record<string, unknown>): Promise<{ status?: number }>;
  deliverCommand(command: SlashCommandPayload): Promise<unknown>;
  deliverInteraction(payload: InteractionPayload): Promise<unknown>;
  /** Forgets what both fakes recorded, and the adapter's call budgets and rate-limit pauses, between tests. */
  reset(): void;
  close(): Promise<void>;
}

const apiKey = 'slack-e2e-gateway-key-0123456789';

/**
 * Starts the fakes, builds config, core app and command services the way the process entry does,
 * and starts the real Slack adapter (a real Bolt app) in the given mode.
 */
export async function startSlackUnderTest({
  mode,
  slackOptions = {},
  environment = {},
  stopButtonDelayMs = 2_500,
  thinkingStatusDelayMs,
  prepare,
  scheduleClockStartMs,
}: {
  /** Runs schedules on a manual clock starting here (`under.scheduling.clock`). */
  scheduleClockStartMs?: number;
  mode: SlackMode;
  slackOptions?: FakeSlackOptions;
  environment?: Record<string, string>;
  stopButtonDelayMs?: number;
  /** How long a reply may take to post before "is thinking…"; default the adapter's. */
  thinkingStatusDelayMs?: number;
  /** Sets up the fake workspace (people, user groups) before the bot signs in. */
  prepare?: (slack: FakeSlack) => void;
}): Promise<SlackUnderTest> {
  const gateway = await startFakeGateway({
    apiKey,
    models: { 'chat-model': { vision: false }, 'data-uri-image-model': { imageInputDataUri: true } },
  });
  const slack = await startFakeSlack(slackOptions);
  prepare?.(slack);
  const bot = buildTestBot({
    gatewayBaseUrl: gateway.baseUrl,
    gatewayApiKey: apiKey,
    environment: {
      SLACK_BOT_TOKEN: slack.botToken,
      SLACK_SIGNING_SECRET: slack.signingSecret,
      SLACK_API_URL: slack.apiUrl,
      PORT: '0',
      ...(mode === 'socket' ? { SLACK_APP_TOKEN: slack.appToken } : {}),
      ...environment,
    },
  });
  const { config, app, logger } = bot;
  if (config.platforms.slack === undefined) throw new Error('the test config has no Slack section');
  const scheduling =
    scheduleClockStartMs === undefined
      ? undefined
      : createManualScheduling({ app, config, services: bot.services, startMs: scheduleClockStartMs });
  const services = scheduling?.services ?? bot.services;
  // Kept here so that reset() starts each case with fresh budgets, as the fake's reset does its buckets.
  const outbound = createSlackOutbound();
  const methodPauses = createMethodPauses({ apiUrl: slack.apiUrl, logger });
  const installationKeyv = app.store.namespace('slack-installations');
  const adapter = await startSlackAdapter({
    outbound,
    methodPauses,
    services,
    slack: config.platforms.slack,
    logger,
    maxImageBytes: config.images.maxInputBytes,
    host: '127.0.0.1',
    // OAuth installs (when SLACK_CLIENT_ID is set) in the bot's store, as slack-platform.ts keeps them.
    installationKeyv,
    installationLock: app.coordination.recordLock,
    stopButtonDelayMs,
    ...(thinkingStatusDelayMs === undefined ? {} : { thinkingStatusDelayMs }),
  });
  if (adapter.port !== undefined) slack.appUrl = `http://127.0.0.1:${adapter.port}/slack/events`;
  const target = mode === 'socket' ? { mode: 'socket' as const } : {};
  await scheduling?.start();

  return {
    mode,
    slack,
    gateway,
    app,
    services,
    adapter,
    scheduling,
    logOutput: bot.logOutput,
    installationKeyv,
    deliverEvent: (event, options = {}) =>
      slack.deliverEvent({ event, ...target, ...options } as Parameters<FakeSlack['deliverEvent']>[0]),
    deliverCommand: (command) =>
      mode === 'socket'
        ? slack.deliverSlashCommand({ command, mode: 'socket' })
        : slack.deliverSlashCommand({ command }),
    deliverInteraction: (payload) =>
      mode === 'socket'
        ? slack.deliverInteraction({ payload, mode: 'socket' })
        : slack.deliverInteraction({ payload }),
    reset() {
      slack.reset();
      gateway.reset();
      outbound.reset();
      methodPauses.reset();
    },
    async close() {
      await scheduling?.stop();
      await adapter.stop();
      await bot.close();
      await slack.close();
      await gateway.close();
    },
  };
}
