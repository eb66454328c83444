import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type SlackAdapter, startSlackAdapter } from '../../adapters/slack/slack-adapter.ts';
import { interruptedByRestartNote } from '../../commands/finish-orphaned-replies.ts';
import { conversationKeyOf } from '../../src/conversation/turn.ts';
import { type FakeGateway, startFakeGateway } from '../fakes/gateway/index.ts';
import { type FakeSlack, startFakeSlack } from '../fakes/slack/index.ts';
import { buildTestBot, type TestBot } from '../support/test-bot.ts';
import { installByOAuth, oauthEnvironment } from './install-by-oauth.ts';

const apiKey = 'orphan-gateway-key-0123456789';

/**
 * A reply a killed process left half-written in a workspace installed by OAuth: the next start finds
 * it in the journal and finishes it with that workspace's token, read from its installation.
 */
describe('slack with OAuth installs: a reply left by a restart', () => {
  let gateway: FakeGateway;
  let slack: FakeSlack;
  let directory: string;
  const running: Array<{ bot: TestBot; adapter: SlackAdapter }> = [];

  afterAll(async () => {
    for (const { bot, adapter } of running) {
      await adapter.stop();
      await bot.close();
    }
    await slack?.close();
    await gateway?.close();
    await rm(directory, { recursive: true, force: true });
  });

  async function startProcess(storeUrl: string) {
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
    if (bot.config.platforms.slack === undefined) throw new Error('no Slack settings');
    const adapter = await startSlackAdapter({
      services: bot.services,
      slack: bot.config.platforms.slack,
      logger: bot.logger,
      maxImageBytes: bot.config.images.maxInputBytes,
      host: '127.0.0.1',
      installationKeyv: bot.app.store.namespace('slack-installations'),
      installationLock: bot.app.coordination.recordLock,
    });
    return { bot, adapter };
  }

  it('finishes it on the next start with the workspace’s own token', async () => {
    gateway = await startFakeGateway({ apiKey });
    slack = await startFakeSlack({ nativeStreaming: 'unknown_method' });
    directory = await mkdtemp(join(tmpdir(), 'parley-oauth-orphans-'));
    const storeUrl = `sqlite://${join(directory, 'parley.sqlite')}`;
    const workspace = slack.addInstallableWorkspace({ teamId: 'T0ORPHAN1', channels: ['C0ORPHAN1'] });

    const before = await startProcess(storeUrl);
    const installed = await installByOAuth({
      appOrigin: `http://127.0.0.1:${before.adapter.port}`,
      slack,
      teamId: workspace.teamId,
    });
    expect(installed.status).toBe(200);
    // The reply had got as far as its first words when the process died.
    const question = slack.addMessage({ channel: 'C0ORPHAN1', user: 'U0ASKER01', text: 'tell me a story' });
    const partial = slack.addMessage({
      channel: 'C0ORPHAN1',
      threadTs: question.ts,
      // The app's bot id as the fake stamps it on every message an app token posts (it keeps one per app).
      botId: slack.workspace.botId,
      text: 'Once upon a time',
    });
    const record = before.bot.app.journal.begin({
      address: { platform: 'slack', teamId: workspace.teamId, channel: 'C0ORPHAN1', threadTs: question.ts },
      conversationKey: conversationKeyOf({
        platform: 'slack',
        workspace: workspace.teamId,
        channel: 'C0ORPHAN1',
        thread: question.ts,
      }),
      turn: { authorId: 'U0ASKER01', authorName: 'asker', text: 'tell me a story' },
    });
    record.update({
      messages: [{ id: partial.ts, text: 'Once upon a time' }],
      modelText: 'Once upon a time there',
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await before.adapter.stop();
    await before.bot.close();

    const after = await startProcess(storeUrl);
    running.push(after);
    const finished = await slack.waitFor(() => {
      const message = slack.message('C0ORPHAN1', partial.ts);
      return message?.text.includes(interruptedByRestartNote) ? message : undefined;
    }, 10_000);
    expect(finished.text).toContain('Once upon a time');
    const updates = slack.callsTo('chat.update').filter((call) => call.arguments.ts === partial.ts);
    const [workspaceToken] = [...slack.oauth.tokens.keys()];
    expect(updates.map((call) => call.token)).toEqual(updates.map(() => workspaceToken));
    expect(updates.length).toBeGreaterThan(0);
  });
});
