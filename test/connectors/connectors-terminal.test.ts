import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createConsoleScheduledPlaces } from '../../adapters/console/console-scheduled-places.ts';
import { createConnectRoutes, type HttpRoute } from '../../src/connectors/connect-routes.ts';
import { startHealthServer } from '../../src/operations/health-server.ts';
import { createCapturedLogger } from '../support/capture-logger.ts';
import { type ConsoleUnderTest, startConsoleUnderTest } from '../support/console-under-test.ts';
import { writeToolsFile } from '../support/mcp-test-servers.ts';
import { type OAuthMcpServer, startOAuthMcpServer } from '../support/oauth-mcp-server.ts';
import { followLink, linkIn } from './connector-harness.ts';

/**
 * Connectors at the terminal: /connections prints the Connect link, the owner opens it, and
 * /forget me takes the connection with everything else (revoked at the server).
 */
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start(): Promise<{ server: OAuthMcpServer; under: ConsoleUnderTest }> {
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
  const under = await startConsoleUnderTest({
    TOOLS_FILE: writeToolsFile({ crm: { url: server.url, auth: 'person' } }),
    PUBLIC_URL: `http://127.0.0.1:${http.port}`,
    CONNECTOR_TOKENS_KEY: randomBytes(32).toString('hex'),
  });
  cleanups.push(() => under.close());
  const connectors = under.app.connectors;
  if (!connectors) throw new Error('no connectors');
  route = createConnectRoutes({ connectors, logger: under.app.logger });
  return { server, under };
}

describe('a connector at the terminal', () => {
  it('prints the Connect link, lists and exports the connection, and /forget me removes and revokes it', async () => {
    const { server, under } = await start();
    const printed = await under.type('/connections connect crm');
    // The terminal runs on while its owner is in the browser; each typed line here is a session of
    // its own, so the terminal's places (its owner as they are now) stay registered as a running one's.
    const owner = { id: 'ada', name: 'ada', roleIds: [], isAdmin: true, context: 'terminal' } as const;
    const unregister = under.services.platformPlaces.register(
      createConsoleScheduledPlaces({
        owner,
        conversationKey: 'console:local:ada',
        newResponder: () => {
          throw new Error('nothing is posted here');
        },
        readRecentMessages: async () => [],
        takeTurn: async () => () => {},
      }),
    );
    server.nextAccount = 'ada@crm';
    const browser = await followLink(linkIn(printed));
    expect(browser.text).toContain('crm is connected');
    expect(browser.status).toBe(200);
    unregister();
    expect(await under.type('/connections')).toMatch(/crm: connected since \d{4}-\d{2}-\d{2}/);
    // /export names the connection, never its tokens.
    const exported = await under.app.personData.export({ person: { platform: 'console', userId: 'ada' } });
    expect(exported).toMatchObject({
      data: { connectors: [{ server: 'crm', connectedAt: expect.any(String) }] },
    });
    for (const token of server.accessTokensOf('ada@crm'))
      expect(JSON.stringify(exported)).not.toContain(token);
    await under.type('/forget me', '/press 1');
    expect(server.revoked).toHaveLength(1);
    expect(await under.type('/connections')).toContain('crm: not connected');
  });
});
