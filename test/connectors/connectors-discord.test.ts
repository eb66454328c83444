import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createConnectRoutes, type HttpRoute } from '../../src/connectors/connect-routes.ts';
import { startHealthServer } from '../../src/operations/health-server.ts';
import { createCapturedLogger } from '../support/capture-logger.ts';
import { makeDiscordAdmin, runDiscordConfig } from '../support/discord-admin.ts';
import { startDiscordUnderTest } from '../support/discord-under-test.ts';
import { writeToolsFile } from '../support/mcp-test-servers.ts';
import { startOAuthMcpServer } from '../support/oauth-mcp-server.ts';
import { chatBodies, offeredNames, toolMessages } from '../support/test-tools.ts';
import { followLink, linkIn } from './connector-harness.ts';

/**
 * Connectors end to end on Discord: the real discord.js client against the fake Discord, the fake
 * gateway scripting the model's calls, an MCP server behind OAuth on the SDK's server pieces, and
 * parley's HTTP server (the health server, with the connectors' routes) at PUBLIC_URL.
 */
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start(environment: Record<string, string> = {}) {
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
  const subject = await startDiscordUnderTest({
    CHAT_MODEL: 'tools-model',
    TOOLS_FILE: writeToolsFile({ crm: { url: server.url, auth: 'person' } }),
    PUBLIC_URL: `http://127.0.0.1:${http.port}`,
    CONNECTOR_TOKENS_KEY: randomBytes(32).toString('hex'),
    ...environment,
  });
  cleanups.push(() => subject.close());
  const connectors = subject.app.connectors;
  if (!connectors) throw new Error('no connectors');
  route = createConnectRoutes({ connectors, logger: subject.app.logger });
  return { server, subject };
}

describe('a connector on Discord', () => {
  it('sends a private Connect link when the model needs it, tells the person it worked, goes on acting as them; a second person is asked to connect', async () => {
    const { server, subject } = await start();
    const { discord, gateway } = subject;
    const dm = discord.directMessageChannel();
    // Alice asks; she has not connected crm, so the model has only crm_connect and calls it.
    gateway.enqueue({ toolCalls: [{ name: 'crm_connect', arguments: {} }] });
    gateway.enqueue({ text: 'I sent you a private link to connect crm.' });
    discord.sendUserMessage({
      channelId: subject.generalChannelId,
      content: 'who am I in the crm?',
      mentionsBot: true,
    });
    const linkMessage = await discord.waitFor(() =>
      discord.messages(dm).find((message) => message.content.includes('/connect/')),
    );
    expect(offeredNames(chatBodies(gateway)[0])).toContain('crm_connect');
    expect(offeredNames(chatBodies(gateway)[0])).not.toContain('crm_whoami');
    // The link is in her DM only, never in the channel.
    await discord.waitFor(() =>
      subject
        .botMessages(subject.generalChannelId)
        .find((message) => message.content.startsWith('I sent you')),
    );
    expect(
      subject.botMessages(subject.generalChannelId).some((message) => message.content.includes('/connect/')),
    ).toBe(false);
    // Once she connects, the reply goes on by itself: the model now has her crm tools, and the
    // server sees her token.
    gateway.enqueue({ toolCalls: [{ name: 'crm_whoami', arguments: {} }] });
    gateway.enqueue({ text: 'You are alice@crm.' });
    server.nextAccount = 'alice@crm';
    const browser = await followLink(linkIn(linkMessage.content));
    expect(browser.status).toBe(200);
    await discord.waitFor(() =>
      discord.messages(dm).find((message) => message.content.includes('crm is connected')),
    );
    await discord.waitFor(() =>
      subject
        .botMessages(subject.generalChannelId)
        .find((message) => message.content.startsWith('You are alice@crm')),
    );
    expect(server.calls).toEqual(['alice@crm']);
    expect(toolMessages(chatBodies(gateway).at(-1)).join('\n')).toContain('acting as alice@crm');

    // Grace asks: the model is offered crm_connect for her, not alice's tools.
    const grace = discord.createUser({ username: 'grace' });
    gateway.enqueue({ text: 'You need to connect crm first.' });
    discord.sendUserMessage({
      channelId: subject.generalChannelId,
      content: 'who am I?',
      mentionsBot: true,
      author: grace,
    });
    await discord.waitFor(() =>
      subject
        .botMessages(subject.generalChannelId)
        .find((message) => message.content.startsWith('You need to connect')),
    );
    const graceOffer = offeredNames(chatBodies(gateway).at(-1));
    expect(graceOffer).toContain('crm_connect');
    expect(graceOffer).not.toContain('crm_whoami');
    expect(server.calls).toEqual(['alice@crm']);
    // The deed is in the audit trail.
    const audit = await subject.app.audit.read({
      platform: 'discord',
      workspace: discord.guildId,
      limit: 20,
    });
    expect(audit.entries.map((entry) => `${entry.kind} ${entry.what} ${entry.result}`)).toContain(
      'connector connect crm done',
    );
  });

  it('/connections connects with a private link, lists the connection, and disconnects with a revocation', async () => {
    const { server, subject } = await start();
    const { discord } = subject;
    const general = subject.generalChannelId;
    const ask = async (subcommand: string, options: Record<string, string>, expected: string) => {
      const before = subject.botMessages(general).length;
      discord.sendSlashCommand({ name: 'connections', channelId: general, subcommand, options });
      return discord.waitFor(() =>
        subject
          .botMessages(general)
          .slice(before)
          .find((message) => message.content.includes(expected)),
      );
    };
    const linkAnswer = await ask('connect', { server: 'crm' }, 'Connect crm');
    // Ephemeral: only the person who ran the command sees it.
    expect(linkAnswer.flags & 64).toBe(64);
    server.nextAccount = 'alice@crm';
    expect((await followLink(linkIn(linkAnswer.content))).status).toBe(200);
    const listed = await ask('list', {}, 'Your connections');
    expect(listed.content).toMatch(/crm: connected since \d{4}-\d{2}-\d{2}/);
    const disconnected = await ask('disconnect', { server: 'crm' }, 'disconnected');
    expect(disconnected.content).toBe('crm is disconnected and its token revoked.');
    expect(server.revoked).toHaveLength(1);
    const after = await ask('list', {}, 'Your connections');
    expect(after.content).toContain('crm: not connected');
    // /tools says the crm tools need a connection, and how to make it.
    const before = subject.botMessages(general).length;
    discord.sendSlashCommand({ name: 'tools', channelId: general });
    const tools = await discord.waitFor(() =>
      subject
        .botMessages(general)
        .slice(before)
        .find((message) => message.content.includes('🔌 crm')),
    );
    expect(tools.content).toContain('🔌 crm tools need your connection: `/connections connect crm`.');
  });

  it('connects nobody whose standing changed after the link: the callback asks the platform and the gate again', async () => {
    const { server, subject } = await start();
    const { discord } = subject;
    const grace = discord.createUser({ username: 'grace' });
    const before = subject.botMessages(subject.generalChannelId).length;
    discord.sendSlashCommand({
      name: 'connections',
      channelId: subject.generalChannelId,
      subcommand: 'connect',
      options: { server: 'crm' },
      user: grace,
    });
    const answer = await discord.waitFor(() =>
      subject
        .botMessages(subject.generalChannelId)
        .slice(before)
        .find((message) => message.content.includes('Connect crm')),
    );
    // Grace leaves the server before she opens her link.
    discord.removeFromGuild(grace.id);
    server.nextAccount = 'grace@crm';
    const browser = await followLink(linkIn(answer.content));
    expect(browser.status).toBe(403);
    expect(browser.text).toContain('no longer use parley');
    const audit = await subject.app.audit.read({
      platform: 'discord',
      workspace: discord.guildId,
      limit: 20,
    });
    expect(audit.entries.map((entry) => `${entry.what} ${entry.result}`)).toContain(
      'connect crm: refused at the callback refused',
    );
  });

  it('offers nothing of a connector where TOOLS switches it off', async () => {
    const { server, subject } = await start({ TOOLS: 'all,-crm_*' });
    const { discord, gateway } = subject;
    gateway.enqueue({ text: 'Plain answer.' });
    discord.sendUserMessage({ channelId: subject.generalChannelId, content: 'hello', mentionsBot: true });
    await discord.waitFor(() =>
      subject
        .botMessages(subject.generalChannelId)
        .find((message) => message.content.startsWith('Plain answer')),
    );
    expect(offeredNames(chatBodies(gateway)[0]).filter((name) => name.startsWith('crm_'))).toEqual([]);
    expect(server.calls).toEqual([]);
  });

  it('asks the server’s question mid-call of the asker alone, in their DM, and the answer reaches the server', async () => {
    const { server, subject } = await start();
    const { discord, gateway } = subject;
    const dm = discord.directMessageChannel();
    const connectAnswer = async () => {
      const before = subject.botMessages(subject.generalChannelId).length;
      discord.sendSlashCommand({
        name: 'connections',
        channelId: subject.generalChannelId,
        subcommand: 'connect',
        options: { server: 'crm' },
      });
      return discord.waitFor(() =>
        subject
          .botMessages(subject.generalChannelId)
          .slice(before)
          .find((message) => message.content.includes('Connect crm')),
      );
    };
    server.nextAccount = 'alice@crm';
    expect((await followLink(linkIn((await connectAnswer()).content))).status).toBe(200);

    gateway.enqueue({ toolCalls: [{ name: 'crm_book_table', arguments: {} }] });
    gateway.enqueue({ text: 'Booked.' });
    discord.sendUserMessage({
      channelId: subject.generalChannelId,
      content: 'book a table',
      mentionsBot: true,
    });
    const question = await discord.waitFor(() =>
      discord.messages(dm).find((message) => message.content.includes('crm asks: How many people')),
    );
    const link = /(http:\/\/\S+\/answer\/\S+)/.exec(question.content)?.[1] ?? '';
    const sent = await fetch(link, {
      method: 'POST',
      body: new URLSearchParams({ _action: 'accept', people: '2', time: '19:00', vegetarian: 'true' }),
    });
    expect(sent.status).toBe(200);
    await discord.waitFor(() =>
      subject.botMessages(subject.generalChannelId).find((message) => message.content.startsWith('Booked.')),
    );
    expect(server.elicited).toEqual([
      { action: 'accept', content: { people: 2, time: '19:00', vegetarian: true } },
    ]);
    // The question and its link never went where others see them.
    expect(JSON.stringify(subject.botMessages(subject.generalChannelId))).not.toContain('/answer/');
  });

  it('connects nobody given a blocked role after the link: the gate is asked again at the callback', async () => {
    const { server, subject } = await start();
    const { discord } = subject;
    const admin = makeDiscordAdmin(subject);
    const blocked = discord.createRole({ name: 'blocked' });
    await new Promise((resolve) => setTimeout(resolve, 150));
    const confirmation = await runDiscordConfig(subject, {
      admin,
      options: { setting: 'ACCESS_BLOCK_ROLE_IDS', value: blocked },
    });
    expect(confirmation.content).toMatch(/✅/);
    const person = discord.createUser({ username: 'ada' });
    const before = subject.botMessages(subject.generalChannelId).length;
    discord.sendSlashCommand({
      name: 'connections',
      channelId: subject.generalChannelId,
      subcommand: 'connect',
      options: { server: 'crm' },
      user: person,
    });
    const answer = await discord.waitFor(() =>
      subject
        .botMessages(subject.generalChannelId)
        .slice(before)
        .find((message) => message.content.includes('Connect crm')),
    );
    // A moderator gives her the blocked role while she is at the authorization page.
    discord.giveRole(person.id, blocked);
    await new Promise((resolve) => setTimeout(resolve, 150));
    server.nextAccount = 'ada@crm';
    const browser = await followLink(linkIn(answer.content));
    expect(browser.status).toBe(403);
    const listed = await subject.app.connectors?.list({
      actor: { id: person.id, name: 'ada', roleIds: [], isAdmin: false, context: 'server' },
      conversationKey: `discord:${discord.guildId}:${subject.generalChannelId}`,
    });
    expect(listed?.[0]?.connection).toBeUndefined();
  });
});
