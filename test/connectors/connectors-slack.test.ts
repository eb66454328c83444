import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createConnectRoutes, type HttpRoute } from '../../src/connectors/connect-routes.ts';
import { startHealthServer } from '../../src/operations/health-server.ts';
import { appMention } from '../fakes/slack/index.ts';
import { type SlackUnderTest, startSlackUnderTest } from '../slack/slack-under-test.ts';
import { createCapturedLogger } from '../support/capture-logger.ts';
import { writeToolsFile } from '../support/mcp-test-servers.ts';
import { startOAuthMcpServer } from '../support/oauth-mcp-server.ts';
import { chatBodies, offeredNames } from '../support/test-tools.ts';
import { followLink, linkIn } from './connector-harness.ts';

/**
 * Connectors end to end on Slack: a real Bolt app against the fake Slack Web API, the Connect link
 * as an ephemeral message only the asker sees (chat.postEphemeral), the tool then acting with that
 * person's token.
 */
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('a connector on Slack', () => {
  it('sends the Connect link ephemerally to the asker, then the tool acts as them', async () => {
    const server = await startOAuthMcpServer();
    cleanups.push(() => server.close());
    let route: HttpRoute = async () => false;
    const http = await startHealthServer({
      port: 0,
      readiness: async () => ({ isReady: true, checks: {}, reasons: [], warnings: [] }),
      logger: createCapturedLogger().logger,
      routes: [(request, response) => route(request, response)],
    });
    cleanups.push(() => http.close());
    const bot: SlackUnderTest = await startSlackUnderTest({
      mode: 'http',
      environment: {
        CHAT_MODEL: 'tools-model',
        TOOLS_FILE: writeToolsFile({ crm: { url: server.url, auth: 'person' } }),
        PUBLIC_URL: `http://127.0.0.1:${http.port}`,
        CONNECTOR_TOKENS_KEY: randomBytes(32).toString('hex'),
      },
    });
    cleanups.push(() => bot.close());
    const connectors = bot.app.connectors;
    if (!connectors) throw new Error('no connectors');
    route = createConnectRoutes({ connectors, logger: bot.app.logger });

    bot.gateway.enqueue({ toolCalls: [{ name: 'crm_connect', arguments: {} }] });
    bot.gateway.enqueue({ text: 'I sent you a private link to connect crm.' });
    await bot.deliverEvent(appMention({ channel: 'C0CONNECT1', text: 'who am I in the crm?' }));
    const ephemeral = await bot.slack.waitFor(() =>
      bot.slack.ephemeralMessages.find((message) => message.text?.includes('/connect/')),
    );
    expect(ephemeral).toMatchObject({ channel: 'C0CONNECT1', user: 'U0PERSON01' });
    expect(offeredNames(chatBodies(bot.gateway)[0])).toContain('crm_connect');
    // Connected, the reply goes on by itself with her token.
    bot.gateway.enqueue({ toolCalls: [{ name: 'crm_whoami', arguments: {} }] });
    bot.gateway.enqueue({ text: 'You are alice@crm.' });
    server.nextAccount = 'alice@crm';
    expect((await followLink(linkIn(ephemeral.text))).status).toBe(200);
    await bot.slack.waitFor(() =>
      bot.slack.ephemeralMessages.find((message) => message.text?.includes('crm is connected')),
    );
    await bot.slack.waitFor(() => server.calls.length > 0);
    expect(server.calls).toEqual(['alice@crm']);
    // The link never went where others see it.
    const everyPublicText = JSON.stringify(bot.slack.messages('C0CONNECT1'));
    expect(everyPublicText).not.toContain('/connect/');
  });
});
