import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { type SlackAdapter, startSlackAdapter } from '../../adapters/slack/slack-adapter.ts';
import { checkReadiness } from '../../src/operations/health.ts';
import { type FakeGateway, startFakeGateway } from '../fakes/gateway/index.ts';
import {
  appMention,
  type FakeSlack,
  type InstallableWorkspace,
  startFakeSlack,
} from '../fakes/slack/index.ts';
import { buildTestBot, type TestBot } from '../support/test-bot.ts';
import { installByOAuth, oauthEnvironment } from './install-by-oauth.ts';
import { buttonsOf } from './reply-blocks.ts';

const apiKey = 'rotation-gateway-key-0123456789';
const redisUrl = process.env.REDIS_URL;

/**
 * Token rotation (docs.slack.dev/authentication/using-token-rotation): an installation's bot token
 * expires after 12 hours and is refreshed with its one-use refresh token. parley refreshes it before it
 * expires, once however many processes need it at that moment, and every process then uses the new one.
 */
describe('slack token rotation with OAuth installs', () => {
  let gateway: FakeGateway;
  let slack: FakeSlack;
  const bots: TestBot[] = [];
  const adapters: SlackAdapter[] = [];

  afterAll(async () => {
    for (const adapter of adapters) await adapter.stop();
    for (const bot of bots) await bot.close();
    await slack?.close();
    await gateway?.close();
  });

  /** One parley process: its own core and Bolt app, on the given store. */
  async function startProcess(storeUrl: string): Promise<{ origin: string }> {
    const bot = buildTestBot({
      gatewayBaseUrl: gateway.baseUrl,
      gatewayApiKey: apiKey,
      environment: {
        ...oauthEnvironment(slack),
        SLACK_SIGNING_SECRET: slack.signingSecret,
        SLACK_API_URL: slack.apiUrl,
        PORT: '0',
        STORE_URL: storeUrl,
      },
    });
    bots.push(bot);
    if (bot.config.platforms.slack === undefined) throw new Error('no Slack settings');
    const adapter = await startSlackAdapter({
      services: bot.services,
      slack: bot.config.platforms.slack,
      logger: bot.logger,
      maxImageBytes: bot.config.images.maxInputBytes,
      host: '127.0.0.1',
      deduper: bot.app.coordination.eventDeduper,
      installationKeyv: bot.app.store.namespace('slack-installations'),
      installationLock: bot.app.coordination.recordLock,
    });
    adapters.push(adapter);
    return { origin: `http://127.0.0.1:${adapter.port}` };
  }

  async function mentionAt({
    origin,
    workspace,
    channel,
  }: {
    origin: string;
    workspace: InstallableWorkspace;
    channel: string;
  }) {
    const mention = appMention({
      channel,
      text: `hello from ${channel}`,
      teamId: workspace.teamId,
      botUserId: workspace.botUserId,
    });
    await slack.deliverEvent({
      event: mention,
      url: `${origin}/slack/events`,
      origin: { teamId: workspace.teamId, botUserId: workspace.botUserId },
    });
    return slack.waitFor(
      () =>
        slack
          .messages(channel, String(mention.ts))
          .find(
            (message) => message.botId !== undefined && buttonsOf(message)[0]?.text.text === 'Regenerate',
          ),
      10_000,
    );
  }

  /** The tokens the posts into a channel were made with. */
  const postingTokens = (channel: string) =>
    new Set(
      slack.calls
        .filter((call) => call.arguments.channel === channel && call.method.startsWith('chat.'))
        .map((call) => call.token),
    );

  async function startFakes() {
    gateway = await startFakeGateway({ apiKey, replyTextFor: () => 'Rotated fine.' });
    slack = await startFakeSlack({ nativeStreaming: 'unknown_method', isTokenRotationEnabled: true });
  }

  it('refreshes a token that expires within two hours before using it, then uses the new one', async () => {
    await startFakes();
    const teamId = `T0${randomBytes(4).toString('hex').toUpperCase()}`;
    const workspace = slack.addInstallableWorkspace({ teamId, channels: ['C0ROTATE1', 'C0ROTATE2'] });
    const { origin } = await startProcess('memory://');
    // Slack hands out a token with an hour left; parley refreshes within two hours of expiry.
    slack.oauth.tokenLifetimeSec = 3_600;
    const installed = await installByOAuth({ appOrigin: origin, slack, teamId });
    expect(installed.status).toBe(200);
    const [installToken] = [...slack.oauth.tokens.keys()];
    slack.oauth.tokenLifetimeSec = 12 * 60 * 60;

    await mentionAt({ origin, workspace, channel: 'C0ROTATE1' });
    expect(slack.oauth.refreshCount).toBe(1);
    const used = [...postingTokens('C0ROTATE1')];
    expect(used).toHaveLength(1);
    expect(used[0]).not.toBe(installToken);
    expect(used[0]).toMatch(/^xoxe\.xoxb-1-/);

    // The new token has twelve hours: the next event uses it without another refresh.
    await mentionAt({ origin, workspace, channel: 'C0ROTATE2' });
    expect(slack.oauth.refreshCount).toBe(1);
    expect(postingTokens('C0ROTATE2')).toEqual(new Set(used));
    expect(bots[0]?.logOutput()).toContain('refreshed the bot token of an installation');
    for (const token of slack.oauth.tokens.keys()) expect(bots[0]?.logOutput()).not.toContain(token);
  });

  it('names a workspace whose refresh failed on /readyz, answers nothing there, and keeps the others answering', async () => {
    const origin = `http://127.0.0.1:${adapters[0]?.port}`;
    const teamId = `T0${randomBytes(4).toString('hex').toUpperCase()}`;
    const failing = slack.addInstallableWorkspace({ teamId, channels: ['C0FAILED1'] });
    slack.oauth.tokenLifetimeSec = 3_600;
    expect((await installByOAuth({ appOrigin: origin, slack, teamId })).status).toBe(200);
    slack.oauth.tokenLifetimeSec = 12 * 60 * 60;
    slack.failNext({ method: 'oauth.v2.access', error: 'invalid_refresh_token' });
    const before = slack.calls.length;
    await slack.deliverEvent({
      event: appMention({ channel: 'C0FAILED1', text: 'anyone?', teamId, botUserId: failing.botUserId }),
      url: `${origin}/slack/events`,
      origin: { teamId, botUserId: failing.botUserId },
    });
    await slack.waitFor(() => bots[0]?.logOutput().includes('could not refresh the bot token'));
    expect(slack.calls.slice(before).map((call) => call.method)).toEqual(['oauth.v2.access']);
    const readiness = await checkReadiness({ platforms: [], probeStore: async () => undefined });
    expect(readiness.isReady).toBe(true);
    expect(readiness.warnings).toContain(
      `slack: team:${teamId} token refresh failed (invalid_refresh_token)`,
    );

    // The workspace of the first test still answers.
    const [first] = [...slack.oauth.workspaces.values()];
    if (first === undefined) throw new Error('no first workspace');
    await mentionAt({ origin, workspace: first, channel: first.channels[0] ?? '' });

    // The next event of the failing workspace refreshes (the refresh token was not spent) and clears it.
    await mentionAt({ origin, workspace: failing, channel: 'C0FAILED1' });
    const after = await checkReadiness({ platforms: [], probeStore: async () => undefined });
    expect(after.warnings.filter((warning) => warning.includes(teamId))).toEqual([]);
  });

  it.skipIf(redisUrl === undefined)(
    redisUrl === undefined
      ? 'two processes on Redis (skipped: REDIS_URL is not set; run with REDIS_URL=redis://127.0.0.1:6379)'
      : 'two processes on Redis needing the refresh at once refresh once, and both use the new token',
    async () => {
      for (const adapter of adapters.splice(0)) await adapter.stop();
      for (const bot of bots.splice(0)) await bot.close();
      await slack?.close();
      await gateway?.close();
      await startFakes();
      const teamId = `T0${randomBytes(4).toString('hex').toUpperCase()}`;
      const workspace = slack.addInstallableWorkspace({ teamId, channels: ['C0REDIS01', 'C0REDIS02'] });
      const first = await startProcess(redisUrl ?? '');
      const second = await startProcess(redisUrl ?? '');
      slack.oauth.tokenLifetimeSec = 3_600;
      expect((await installByOAuth({ appOrigin: first.origin, slack, teamId })).status).toBe(200);
      const [installToken] = [...slack.oauth.tokens.keys()];
      slack.oauth.tokenLifetimeSec = 12 * 60 * 60;

      // One event reaches each process at the same moment; both find the token expiring.
      await Promise.all([
        mentionAt({ origin: first.origin, workspace, channel: 'C0REDIS01' }),
        mentionAt({ origin: second.origin, workspace, channel: 'C0REDIS02' }),
      ]);
      expect(slack.oauth.refreshCount).toBe(1);
      const firstTokens = postingTokens('C0REDIS01');
      expect(firstTokens.size).toBe(1);
      expect(postingTokens('C0REDIS02')).toEqual(firstTokens);
      expect(firstTokens.has(installToken)).toBe(false);
      // No refresh token was spent twice.
      expect(slack.callsTo('oauth.v2.access').filter((call) => call.result.ok === false)).toEqual([]);
      await adapters[0]?.installations?.deleteInstallation({
        teamId,
        enterpriseId: undefined,
        isEnterpriseInstall: false,
      });
    },
  );
});
