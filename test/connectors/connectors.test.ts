import { afterEach, describe, expect, it } from 'vitest';
import type { Tool } from '../../src/tools/tool.ts';
import {
  type OAuthMcpServer,
  type OAuthMcpServerOptions,
  startOAuthMcpServer,
} from '../support/oauth-mcp-server.ts';
import {
  conversationKey,
  createSharedState,
  followLink,
  linkIn,
  type ParleyUnderTest,
  personActor,
  runContext,
  type SharedState,
  startParley,
} from './connector-harness.ts';

/**
 * Connectors over real sockets: parley's connectors (the SDK's OAuth client and Streamable HTTP
 * transport, through parley's guarded fetch) against an MCP server behind OAuth built on the SDK's
 * own server pieces, the Connect link and callback served by parley's HTTP server, a browser
 * following them with fetch.
 */
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function oauthServer(options: OAuthMcpServerOptions = {}): Promise<OAuthMcpServer> {
  const server = await startOAuthMcpServer(options);
  cleanups.push(() => server.close());
  return server;
}

async function parley(
  server: OAuthMcpServer,
  shared: SharedState = createSharedState(),
  extra: Partial<Parameters<typeof startParley>[0]> = {},
  auth: 'person' | 'owner' = 'person',
): Promise<ParleyUnderTest> {
  const started = await startParley({ servers: { crm: { url: server.url, auth } }, shared, ...extra });
  cleanups.push(() => started.close());
  return started;
}

const named = (tools: readonly Tool[], name: string): Tool => {
  const tool = tools.find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`no tool ${name} among ${tools.map((candidate) => candidate.name).join(', ')}`);
  return tool;
};

/** The person asks the model for the server's tool: the Connect tool sends them a private link. */
async function connect(subject: ParleyUnderTest, server: OAuthMcpServer, userId: string, account: string) {
  const actor = personActor(userId);
  const told: string[] = [];
  const tools = (await subject.connectors.toolsFor({ actor, conversationKey })).tools;
  const output = await named(tools, 'crm_connect').run({ arguments: {}, context: runContext(actor, told) });
  server.nextAccount = account;
  const browser = await followLink(linkIn(told[0]));
  return { output, told, browser, actor };
}

async function whoami(subject: ParleyUnderTest, userId: string) {
  const actor = personActor(userId);
  const context = runContext(actor);
  const tools = (await subject.connectors.toolsFor({ actor, conversationKey })).tools;
  const output = await named(tools, 'crm_whoami').run({ arguments: {}, context });
  return { output, notices: context.notices };
}

describe('a person connects an OAuth-protected MCP server', () => {
  it('offers a Connect tool, sends a private single-use link, and then the tool acts as them', async () => {
    const server = await oauthServer();
    const subject = await parley(server);
    const { output, told, browser } = await connect(subject, server, 'alice', 'alice@crm');
    expect(output.text).toContain('private link');
    expect(told[0]).toContain('works once, for 10 minutes');
    expect(browser.status).toBe(200);
    expect(browser.text).toContain('crm is connected');
    // Told in chat too, privately, that it worked.
    expect(told[1]).toContain('crm is connected');
    const { output: answer } = await whoami(subject, 'alice');
    expect(answer.text).toContain('acting as alice@crm');
    expect(server.calls).toEqual(['alice@crm']);
    // The token never reaches a log line.
    const [token] = server.accessTokensOf('alice@crm');
    expect(subject.logs()).not.toContain(token);
  });

  it('asks a second person to connect their own account instead of using the first one’s token', async () => {
    const server = await oauthServer();
    const subject = await parley(server);
    await connect(subject, server, 'alice', 'alice@crm');
    const bobTools = (await subject.connectors.toolsFor({ actor: personActor('bob'), conversationKey }))
      .tools;
    expect(bobTools.map((tool) => tool.name)).toEqual(['crm_connect']);
    await connect(subject, server, 'bob', 'bob@crm');
    await whoami(subject, 'bob');
    await whoami(subject, 'alice');
    expect(server.calls).toEqual(['bob@crm', 'alice@crm']);
  });

  it('keeps tokens sealed in the store: nothing of them is readable there, and they survive a restart', async () => {
    const server = await oauthServer();
    const shared = createSharedState();
    const first = await parley(server, shared);
    await connect(first, server, 'alice', 'alice@crm');
    const [token] = server.accessTokensOf('alice@crm');
    for await (const [, value] of shared.tokens.iterator?.(undefined) ?? []) {
      expect(JSON.stringify(value)).not.toContain(String(token));
    }
    await first.close();
    const second = await parley(server, shared);
    const { output } = await whoami(second, 'alice');
    expect(output.text).toContain('acting as alice@crm');
  });

  it('disconnects: revokes at the server (RFC 7009), forgets the token, and offers Connect again', async () => {
    const server = await oauthServer();
    const shared = createSharedState();
    const subject = await parley(server, shared);
    const { actor } = await connect(subject, server, 'alice', 'alice@crm');
    expect(await subject.connectors.disconnect({ actor, conversationKey, server: 'crm' })).toEqual({
      result: 'revoked',
    });
    expect(server.revoked).toHaveLength(1);
    const tools = (await subject.connectors.toolsFor({ actor, conversationKey })).tools;
    expect(tools.map((tool) => tool.name)).toEqual(['crm_connect']);
    const audit = await shared.audit.read({ platform: 'discord', workspace: 'guild-1', limit: 10 });
    expect(audit.entries.map((entry) => `${entry.what} ${entry.result}`)).toEqual(
      expect.arrayContaining(['connect crm done', 'disconnect crm (revoked) done']),
    );
  });

  it('/forget me removes every connection of the person', async () => {
    const server = await oauthServer();
    const subject = await parley(server);
    await connect(subject, server, 'alice', 'alice@crm');
    expect(await subject.connectors.forgetPerson({ platform: 'discord', userId: 'alice' })).toBe(1);
    const listed = await subject.connectors.list({ actor: personActor('alice'), conversationKey });
    expect(listed).toEqual([{ server: 'crm', kind: 'person', connection: undefined }]);
  });

  it('refreshes an expiring token once for two processes sharing the store', async () => {
    const server = await oauthServer();
    const shared = createSharedState();
    let clockMs = Date.now();
    const nowMs = () => clockMs;
    const one = await parley(server, shared, { nowMs });
    const two = await parley(server, shared, { nowMs });
    await connect(one, server, 'alice', 'alice@crm');
    // An hour later the access token is at its end (by parley's clock; the server's is still fine).
    clockMs += 3_600_000;
    const [fromOne, fromTwo] = await Promise.all([whoami(one, 'alice'), whoami(two, 'alice')]);
    expect(fromOne.output.text).toContain('acting as alice@crm');
    expect(fromTwo.output.text).toContain('acting as alice@crm');
    expect(server.refreshCount).toBe(1);
  });

  it('turns a token revoked at the service into a reconnect note and a Connect tool, not an error wall', async () => {
    const server = await oauthServer();
    const subject = await parley(server);
    await connect(subject, server, 'alice', 'alice@crm');
    const actor = personActor('alice');
    const tools = (await subject.connectors.toolsFor({ actor, conversationKey })).tools;
    server.revokeAllOf('alice@crm');
    const context = runContext(actor);
    const output = await named(tools, 'crm_whoami').run({ arguments: {}, context });
    expect(output.isError).toBe(true);
    expect(output.text).toContain('connect it again');
    expect(context.notices).toEqual([expect.stringContaining('Your crm connection stopped working')]);
    const next = (await subject.connectors.toolsFor({ actor, conversationKey })).tools;
    expect(next.map((tool) => tool.name)).toEqual(['crm_connect']);
  });
  it('at the start of a turn, a token revoked since becomes a reconnect note and a Connect tool', async () => {
    const server = await oauthServer();
    const shared = createSharedState();
    const first = await parley(server, shared);
    await connect(first, server, 'alice', 'alice@crm');
    server.revokeAllOf('alice@crm');
    const later = await parley(server, shared);
    const turn = await later.connectors.toolsFor({ actor: personActor('alice'), conversationKey });
    expect(turn.tools.map((tool) => tool.name)).toEqual(['crm_connect']);
    expect(turn.notices).toEqual([expect.stringContaining('Your crm connection stopped working')]);
    expect(turn.outages).toEqual([]);
  });

  it('a connector whose server is down is an outage of the turn, told in the reply', async () => {
    const server = await oauthServer();
    const shared = createSharedState();
    const first = await parley(server, shared);
    await connect(first, server, 'alice', 'alice@crm');
    await server.close();
    const later = await parley(server, shared);
    const turn = await later.connectors.toolsFor({ actor: personActor('alice'), conversationKey });
    expect(turn.tools).toEqual([]);
    expect(turn.outages.map((outage) => outage.source)).toEqual(['crm']);
  });
});

describe('parley’s Client ID Metadata Document', () => {
  it('is served at an https PUBLIC_URL, naming itself as the client id and the callback as its redirect', async () => {
    const server = await oauthServer();
    const subject = await parley(server, createSharedState(), { publicUrl: 'https://parley.example/chat' });
    const document = await fetch(`${subject.localUrl}/connectors/client-metadata.json`);
    expect(document.status).toBe(200);
    expect(await document.json()).toMatchObject({
      client_id: 'https://parley.example/chat/connectors/client-metadata.json',
      redirect_uris: ['https://parley.example/chat/connectors/callback'],
      token_endpoint_auth_method: 'none',
    });
  });

  it('is not offered at an http one (the specification wants https)', async () => {
    const server = await oauthServer();
    const subject = await parley(server);
    expect((await fetch(`${subject.localUrl}/connectors/client-metadata.json`)).status).toBe(404);
  });
});

describe('what a Connect link and its callback refuse', () => {
  it('a link works once: previews (GETs) use nothing up, a second Continue is refused', async () => {
    const server = await oauthServer();
    const subject = await parley(server);
    const begun = await subject.connectors.beginConnect({
      actor: personActor('alice'),
      conversationKey,
      server: 'crm',
    });
    if (!('link' in begun)) throw new Error(begun.problem);
    // A chat platform's link preview, then the person's own look at the page.
    for (const _ of [1, 2]) {
      const page = await fetch(begun.link);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<form method="post">');
    }
    expect((await fetch(begun.link, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    const again = await fetch(begun.link, { method: 'POST', redirect: 'manual' });
    expect(again.status).toBe(410);
    expect((await fetch(begun.link)).status).toBe(410);
  });

  it('a replayed callback (the same state and code) is refused, and the connection is not touched', async () => {
    const server = await oauthServer();
    const subject = await parley(server);
    const { browser } = await connect(subject, server, 'alice', 'alice@crm');
    const replay = await fetch(browser.callbackUrl ?? '', { headers: { cookie: browser.cookie ?? '' } });
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain('expired or was already used');
    const { output } = await whoami(subject, 'alice');
    expect(output.text).toContain('acting as alice@crm');
  });

  it('a callback for someone else’s link (another browser, without its cookie) is refused and audited', async () => {
    const server = await oauthServer();
    const shared = createSharedState();
    const subject = await parley(server, shared);
    const begun = await subject.connectors.beginConnect({
      actor: personActor('alice'),
      conversationKey,
      server: 'crm',
    });
    if (!('link' in begun)) throw new Error(begun.problem);
    // Mallory opens alice's link and signs in as herself, then gets alice's browser to the callback.
    server.nextAccount = 'mallory@crm';
    const opened = await fetch(begun.link, { method: 'POST', redirect: 'manual' });
    const authorized = await fetch(opened.headers.get('location') ?? '', { redirect: 'manual' });
    const callback = await fetch(authorized.headers.get('location') ?? '');
    expect(callback.status).toBe(403);
    const listed = await subject.connectors.list({ actor: personActor('alice'), conversationKey });
    expect(listed[0]?.connection).toBeUndefined();
    const audit = await shared.audit.read({ platform: 'discord', workspace: 'guild-1', limit: 10 });
    expect(audit.entries.map((entry) => entry.result)).toEqual(['refused']);
  });

  it('an authorization server that answers with an error, or refuses the code, connects nothing and says so', async () => {
    const server = await oauthServer();
    const shared = createSharedState();
    const subject = await parley(server, shared);
    const startSignIn = async () => {
      const begun = await subject.connectors.beginConnect({
        actor: personActor('alice'),
        conversationKey,
        server: 'crm',
      });
      if (!('link' in begun)) throw new Error(begun.problem);
      const opened = await fetch(begun.link, { method: 'POST', redirect: 'manual' });
      const authorizationUrl = new URL(opened.headers.get('location') ?? '');
      return {
        state: authorizationUrl.searchParams.get('state') ?? '',
        cookie: opened.headers.get('set-cookie')?.split(';')[0] ?? '',
      };
    };
    // The person said no at the authorization page.
    const refused = await startSignIn();
    const denied = await fetch(
      `${subject.publicUrl}/connectors/callback?error=access_denied&state=${refused.state}`,
      { headers: { cookie: refused.cookie } },
    );
    expect(denied.status).toBe(400);
    expect(await denied.text()).toContain('crm did not connect');
    // A code the authorization server never issued.
    const forged = await startSignIn();
    const exchange = await fetch(
      `${subject.publicUrl}/connectors/callback?code=forged-code&state=${forged.state}`,
      { headers: { cookie: forged.cookie } },
    );
    expect(exchange.status).toBe(502);
    expect(await exchange.text()).toContain('its authorization server refused');
    const listed = await subject.connectors.list({ actor: personActor('alice'), conversationKey });
    expect(listed[0]?.connection).toBeUndefined();
    const audit = await shared.audit.read({ platform: 'discord', workspace: 'guild-1', limit: 10 });
    expect(audit.entries.map((entry) => `${entry.what} ${entry.result}`)).toEqual(
      expect.arrayContaining([
        'connect crm: the authorization server said access_denied failed',
        'connect crm: the code exchange failed failed',
      ]),
    );
  });

  it('asks the gate at the callback with the person as they are now', async () => {
    const server = await oauthServer();
    const subject = await parley(server, createSharedState(), {
      standingNow: async () => ({
        isAllowed: false,
        text: 'You can no longer use parley where you asked for this link.',
      }),
    });
    const { browser } = await connect(subject, server, 'alice', 'alice@crm');
    expect(browser.status).toBe(403);
    expect(browser.text).toContain('no longer use parley');
    const listed = await subject.connectors.list({ actor: personActor('alice'), conversationKey });
    expect(listed[0]?.connection).toBeUndefined();
  });

  it('refuses metadata that points the authorization server at a private address', async () => {
    const server = await oauthServer({
      resourceMetadataOverride: ({ resource }) => ({
        resource,
        authorization_servers: ['https://10.0.0.7/'],
      }),
    });
    const subject = await parley(server);
    const begun = await subject.connectors.beginConnect({
      actor: personActor('alice'),
      conversationKey,
      server: 'crm',
    });
    expect(begun).toEqual({ problem: expect.stringContaining('could not reach crm') });
    expect(subject.logs()).toContain('10.0.0.7');
  });

  it('refuses protected resource metadata for another resource', async () => {
    const server = await oauthServer({
      resourceMetadataOverride: ({ authorizationServer }) => ({
        resource: 'https://elsewhere.example/mcp',
        authorization_servers: [authorizationServer],
      }),
    });
    const subject = await parley(server);
    const begun = await subject.connectors.beginConnect({
      actor: personActor('alice'),
      conversationKey,
      server: 'crm',
    });
    expect(begun).toEqual({ problem: expect.stringContaining('could not reach crm') });
  });

  it('a token the authorization server issued for another resource is refused by the server: reconnect, never used', async () => {
    const server = await oauthServer({ issueForResource: 'https://elsewhere.example/mcp' });
    const subject = await parley(server);
    await connect(subject, server, 'alice', 'alice@crm');
    const tools = (await subject.connectors.toolsFor({ actor: personActor('alice'), conversationKey })).tools;
    expect(tools.map((tool) => tool.name)).toEqual(['crm_connect']);
    expect(server.calls).toEqual([]);
  });

  it('an owner connection is made by an admin only, and serves everyone of the place', async () => {
    const server = await oauthServer();
    const subject = await parley(server, createSharedState(), {}, 'owner');
    const refused = await subject.connectors.beginConnect({
      actor: personActor('bob'),
      conversationKey,
      server: 'crm',
    });
    expect(refused).toEqual({ problem: 'Only an admin can connect crm for everyone here.' });
    const admin = personActor('ada', { isAdmin: true });
    const told: string[] = [];
    const tools = (await subject.connectors.toolsFor({ actor: admin, conversationKey })).tools;
    await named(tools, 'crm_connect').run({ arguments: {}, context: runContext(admin, told) });
    server.nextAccount = 'team@crm';
    expect((await followLink(linkIn(told[0]))).status).toBe(200);
    const { output } = await whoami(subject, 'bob');
    expect(output.text).toContain('acting as team@crm');
  });
});
