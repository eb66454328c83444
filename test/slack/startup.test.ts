import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSlackAdapter } from '../../adapters/slack/slack-adapter.ts';
import { type FakeSlack, startFakeSlack } from '../fakes/slack/index.ts';
import { buildTestBot, type TestBot } from '../support/test-bot.ts';

/** Starting the real adapter against the fake Slack, as `npm start` does, with one thing wrong at a time. */
describe('slack start-up: which mode, where, which workspace, and what to fix', () => {
  let slack: FakeSlack;
  const bots: TestBot[] = [];

  beforeAll(async () => {
    slack = await startFakeSlack();
  });
  afterAll(async () => {
    await Promise.all(bots.map((bot) => bot.close()));
    await slack.close();
  });

  function start(environment: Record<string, string>) {
    const bot = buildTestBot({
      gatewayBaseUrl: 'http://127.0.0.1:9/api/v1',
      gatewayApiKey: 'unused-gateway-key-0123456789',
      environment: {
        SLACK_BOT_TOKEN: slack.botToken,
        SLACK_SIGNING_SECRET: slack.signingSecret,
        SLACK_API_URL: slack.apiUrl,
        PORT: '0',
        ...environment,
      },
    });
    bots.push(bot);
    if (bot.config.platforms.slack === undefined) throw new Error('no Slack section in the test config');
    const adapter = startSlackAdapter({
      services: bot.services,
      slack: bot.config.platforms.slack,
      logger: bot.logger,
      maxImageBytes: bot.config.images.maxInputBytes,
      host: '127.0.0.1',
    });
    return { bot, adapter };
  }

  it('logs HTTP mode with its address and the workspace it signed in to', async () => {
    const { bot, adapter } = start({});
    const running = await adapter;

    expect(bot.logOutput()).toContain('slack: signed in to the workspace \\"Fake Workspace\\"');
    expect(bot.logOutput()).toContain(
      `HTTP mode (SLACK_APP_TOKEN is not set): listening at http://127.0.0.1:${running.port}/slack/events`,
    );
    expect(bot.logOutput()).toContain('npm run slack-manifest -- --http');
    await running.stop();
  });

  it('logs Socket Mode when the app token is set', async () => {
    const { bot, adapter } = start({ SLACK_APP_TOKEN: slack.appToken });
    const running = await adapter;

    expect(bot.logOutput()).toContain('Socket Mode (SLACK_APP_TOKEN is set): connected');
    await running.stop();
  });

  it('connects over Socket Mode with the bot and app tokens alone, no signing secret', async () => {
    const { bot, adapter } = start({ SLACK_APP_TOKEN: slack.appToken, SLACK_SIGNING_SECRET: '' });
    const running = await adapter;

    expect(bot.logOutput()).toContain('Socket Mode (SLACK_APP_TOKEN is set): connected');
    await running.stop();
  });

  it('names SLACK_BOT_TOKEN when Slack rejects the bot token', async () => {
    const { bot, adapter } = start({ SLACK_BOT_TOKEN: 'xoxb-not-the-right-token' });

    await expect(adapter).rejects.toThrow(
      /^Slack: SLACK_BOT_TOKEN was rejected by Slack \(invalid_auth\)\. Copy the Bot User OAuth Token/,
    );
    expect(bot.logOutput()).not.toContain('xoxb-not-the-right-token');
  });

  it('names SLACK_APP_TOKEN when Slack rejects the app-level token', async () => {
    const { adapter } = start({ SLACK_APP_TOKEN: 'xapp-not-the-right-token' });

    await expect(adapter).rejects.toThrow(
      /^Slack: SLACK_APP_TOKEN was rejected by Slack \(invalid_auth\)\. Create an App-Level Token/,
    );
  });

  it('names PORT when HTTP mode cannot listen', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    const { adapter } = start({ PORT: String(port) });

    await expect(adapter).rejects.toThrow(new RegExp(`^Slack: PORT ${port} is already in use`));
    await new Promise((resolve) => taken.close(resolve));
  });
});
