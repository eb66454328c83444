import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkReadiness } from '../../src/operations/health.ts';
import { metricsRegistry } from '../../src/operations/metrics.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';
import {
  changingToolsServer,
  everythingServer,
  filesystemServer,
  type HttpEverything,
  nodeServer,
  startHttpEverything,
  waitUntil,
  writeToolsFile,
} from '../support/mcp-test-servers.ts';
import { buildTestBot, type TestBot } from '../support/test-bot.ts';
import { buttonOf, chatBodies, offeredNames, toolMessages } from '../support/test-tools.ts';

/**
 * MCP servers from the tools file, end to end: real servers from npm (server-everything over stdio
 * and Streamable HTTP, server-filesystem on a temporary folder) and one fixture on the official SDK,
 * reached through the SDK's client; the real discord.js client and gateway client against the fakes,
 * the fake gateway scripting the model's tool calls.
 */
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** `${NAME}` as the tools file writes it. */
const placeholder = (name: string) => `\${${name}}`;
/** The servers' tools in the toolbox (the built-in memory tools are always there). */
const toolNames = (app: { toolbox: { all(): readonly { name: string; source: string }[] } }) =>
  app.toolbox
    .all()
    .filter((tool) => tool.source !== 'memory')
    .map((tool) => tool.name);

async function startWithServers(servers: Record<string, unknown>, environment: Record<string, string> = {}) {
  const subject = await startDiscordUnderTest({
    CHAT_MODEL: 'tools-model',
    TOOLS_FILE: writeToolsFile(servers),
    ...environment,
  });
  cleanups.push(() => subject.close());
  return subject;
}

function botBuiltWith(servers: Record<string, unknown>, environment: Record<string, string> = {}): TestBot {
  const bot = buildTestBot({
    // No model is asked in these tests: the servers' life is the subject.
    gatewayBaseUrl: 'http://127.0.0.1:9/api/v1',
    gatewayApiKey: 'mcp-test-gateway-key-0123456789',
    environment: { TOOLS_FILE: writeToolsFile(servers), ...environment },
  });
  cleanups.push(() => bot.close());
  return bot;
}

async function askAndWait(subject: DiscordUnderTest, content: string, answerStart: string) {
  subject.discord.sendUserMessage({ channelId: subject.generalChannelId, content, mentionsBot: true });
  return subject.discord.waitFor(() =>
    subject.botMessages(subject.generalChannelId).find((message) => message.content.startsWith(answerStart)),
  );
}

describe('a stdio server parley starts', () => {
  it('offers its tools named <server>_<tool>, and answers a read-only call wrapped as data, without asking', async () => {
    const subject = await startWithServers({ everything: nodeServer(everythingServer, 'stdio') });
    await waitUntil(() => toolNames(subject.app).includes('everything_echo'));
    subject.gateway.enqueue({
      toolCalls: [{ name: 'everything_echo', arguments: { message: 'hello tools' } }],
    });
    subject.gateway.enqueue({ text: 'It echoed.' });
    await askAndWait(subject, 'echo hello tools', 'It echoed.');

    const offered = offeredNames(chatBodies(subject.gateway)[0]);
    expect(offered).toEqual(expect.arrayContaining(['everything_echo', 'everything_get-sum']));
    expect(offered.every((name) => /^everything_[A-Za-z0-9_-]+$/.test(name))).toBe(true);
    expect(toolMessages(chatBodies(subject.gateway)[1])).toEqual([
      '<tool_result tool="everything_echo" source="everything">\nEcho: hello tools\n</tool_result>',
    ]);
    // echo says readOnlyHint: nobody was asked.
    expect(
      subject.botMessages(subject.generalChannelId).some((message) => message.content.includes('wants to')),
    ).toBe(false);
    const metrics = await metricsRegistry.getSingleMetricAsString('parley_tool_calls_total');
    expect(metrics).toMatch(/parley_tool_calls_total\{tool="everything_echo",source="everything"\} [1-9]/);
  });

  it('asks before server-filesystem writes (write_file is not read-only), and writes after Approve', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'parley-mcp-files-'));
    const subject = await startWithServers({ files: nodeServer(filesystemServer, folder) });
    await waitUntil(() => toolNames(subject.app).includes('files_write_file'));
    const target = join(folder, 'note.txt');
    subject.gateway.enqueue({
      toolCalls: [{ name: 'files_write_file', arguments: { path: target, content: 'written by parley' } }],
    });
    subject.gateway.enqueue({ text: 'I asked you first.' });
    subject.gateway.enqueue({ text: 'Saved the note.' });
    subject.discord.sendUserMessage({
      channelId: subject.generalChannelId,
      content: 'save a note',
      mentionsBot: true,
    });
    const question = await subject.discord.waitFor(() =>
      subject.botMessages(subject.generalChannelId).find((message) => message.content.includes('wants to')),
    );
    expect(question.content).toContain('files_write_file');
    await subject.discord.waitFor(() =>
      subject
        .botMessages(subject.generalChannelId)
        .find((message) => message.content.startsWith('I asked you first.')),
    );
    expect(existsSync(target)).toBe(false);
    subject.discord.clickButton({ messageId: question.id, customId: buttonOf(question, 'Approve') });
    await subject.discord.waitFor(() =>
      subject
        .botMessages(subject.generalChannelId)
        .find((message) => message.content.startsWith('Saved the note.')),
    );
    expect(readFileSync(target, 'utf8')).toBe('written by parley');
    expect(toolMessages(chatBodies(subject.gateway)[2])[0]).toMatch(
      /^<tool_result tool="files_write_file" source="files">\nSuccessfully wrote to /,
    );
  });

  it('shows in /help the tools this person may have used here, marking those that ask first', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'parley-mcp-files-'));
    const subject = await startWithServers(
      {
        files: {
          ...nodeServer(filesystemServer, folder),
          tools: ['read_text_file', 'write_file', 'move_file'],
        },
      },
      { TOOL_ROLE_IDS: 'files_move_file=424242424242424242' },
    );
    await waitUntil(() => toolNames(subject.app).length === 3);
    subject.discord.sendSlashCommand({ name: 'help', channelId: subject.generalChannelId });
    const help = await subject.discord.waitFor(() =>
      subject
        .botMessages(subject.generalChannelId)
        .find((message) => message.content.includes('Tools I may use')),
    );
    const section = help.content.slice(help.content.indexOf('Tools I may use'));
    expect(section.split('\n')).toEqual([
      'Tools I may use when I answer you here (✋ asks you first):',
      '`files_read_text_file` — Read Text File (files)',
      '`files_write_file` ✋ — Write File (files)',
    ]);
  });

  it('is started again after it dies: its tools leave meanwhile, /readyz warns, and they come back', async () => {
    const bot = botBuiltWith({ everything: nodeServer(everythingServer, 'stdio') });
    await waitUntil(() => toolNames(bot.app).includes('everything_echo'));
    const [first] = bot.app.mcpServers.states();
    expect(first?.pid).toBeTypeOf('number');
    process.kill(first?.pid ?? 0, 'SIGKILL');

    await waitUntil(() => bot.app.mcpServers.states()[0]?.status === 'down');
    expect(toolNames(bot.app).filter((name) => name.startsWith('everything_'))).toEqual([]);
    expect(bot.logOutput()).toMatch(
      /MCP server everything is down \(its process exited\); its tools are unavailable/,
    );
    const readiness = await checkReadiness({ platforms: [], probeStore: bot.app.probeStore });
    expect(readiness.isReady).toBe(true);
    expect(readiness.warnings.join('\n')).toMatch(
      /MCP servers down, their tools unavailable: everything \(its process exited; next try in \d+ s\)/,
    );

    await waitUntil(() => toolNames(bot.app).includes('everything_echo'));
    const [second] = bot.app.mcpServers.states();
    expect(second?.status).toBe('up');
    expect(second?.pid).not.toBe(first?.pid);
    const after = await checkReadiness({ platforms: [], probeStore: bot.app.probeStore });
    expect(after.warnings.join('\n')).not.toContain('everything');
  });

  it('lists its tools again on tools/list_changed, and offers the new one in the next reply', async () => {
    // The owner's file makes add_tool read-only, overriding the server's silence (not read-only).
    const subject = await startWithServers({
      changing: {
        ...nodeServer(changingToolsServer),
        annotations: { add_tool: { readOnlyHint: true } },
      },
    });
    await waitUntil(() => toolNames(subject.app).includes('changing_add_tool'));
    expect(toolNames(subject.app)).not.toContain('changing_fresh');
    subject.gateway.enqueue({ toolCalls: [{ name: 'changing_add_tool', arguments: { name: 'fresh' } }] });
    subject.gateway.enqueue({ text: 'Added it.' });
    await askAndWait(subject, 'add a tool called fresh', 'Added it.');
    await waitUntil(() => toolNames(subject.app).includes('changing_fresh'));
    expect(subject.logOutput()).toMatch(/"reason":"list_changed".*"MCP server tools listed"/);

    subject.gateway.enqueue({ text: 'I have it now.' });
    await askAndWait(subject, 'what can you do now?', 'I have it now.');
    expect(offeredNames(chatBodies(subject.gateway)[2])).toEqual(['changing_add_tool', 'changing_fresh']);
  });

  it('never writes a secret from a placeholder to the log, even when the server prints it as it dies', async () => {
    const secret = 'mcp-secret-7f3a9c1e5b2d';
    const bot = botBuiltWith(
      {
        leaky: {
          command: process.execPath,
          args: ['-e', 'console.error("my token is " + process.env.LEAKY_TOKEN); process.exit(3)'],
          env: { LEAKY_TOKEN: placeholder('MCP_TEST_TOKEN') },
        },
      },
      { MCP_TEST_TOKEN: secret },
    );
    await waitUntil(() => /MCP server leaky is down/.test(bot.logOutput()));
    const log = bot.logOutput();
    expect(log).toContain('my token is [redacted]');
    expect(log).not.toContain(secret);
    expect(bot.config.warnings.join('\n')).not.toContain('MCP_TEST_TOKEN');
  });
});

describe('the variables a server receives', () => {
  it('are said at start, one line a server, by name and field, never a value', async () => {
    const values = {
      MCP_ROOT: 'root-value-1a2b3c4d',
      MCP_KEY: 'key-value-5e6f7a8b',
      MCP_BEARER: 'bearer-value-9c0d1e2f',
      GATEWAY_API_KEY: 'allowed-gateway-key-3a4b5c6d',
    };
    const bot = botBuiltWith(
      {
        local: {
          command: process.execPath,
          args: ['-e', 'process.exit(0)', placeholder('MCP_ROOT')],
          env: { KEY: placeholder('MCP_KEY') },
        },
        remote: {
          url: 'http://127.0.0.1:9/mcp',
          headers: {
            Authorization: `Bearer ${placeholder('MCP_BEARER')}`,
            'X-Gateway-Key': placeholder('GATEWAY_API_KEY'),
          },
          allowParleyVariables: ['GATEWAY_API_KEY'],
        },
        plain: { command: process.execPath, args: ['-e', 'process.exit(0)'] },
      },
      values,
    );
    const lines = bot
      .logOutput()
      .split('\n')
      .filter((line) => line.includes('from the environment'));
    expect(lines).toHaveLength(3);
    expect(bot.logOutput()).toContain(
      'MCP server local receives MCP_ROOT (args), MCP_KEY (env) from the environment, besides the usual PATH, HOME, USER, SHELL, TERM',
    );
    expect(bot.logOutput()).toContain(
      'MCP server remote receives MCP_BEARER (headers), GATEWAY_API_KEY (headers) from the environment"',
    );
    expect(bot.logOutput()).toContain('MCP server plain receives no variables from the environment');
    // Not even scrubbed: no value was written in the first place.
    for (const value of Object.values(values)) expect(lines.join('\n')).not.toContain(value);
    expect(lines.join('\n')).not.toContain('[redacted]');
  });
});

describe('a Streamable HTTP server', () => {
  let everything: HttpEverything | undefined;
  afterEach(async () => {
    await everything?.close();
    everything = undefined;
  });

  it('is reached at its declared URL with its headers, and its tools answer', async () => {
    everything = await startHttpEverything();
    const secret = 'http-bearer-0a1b2c3d4e5f';
    const subject = await startWithServers(
      {
        remote: {
          url: everything.url,
          headers: { Authorization: `Bearer ${placeholder('MCP_HTTP_TOKEN')}` },
        },
      },
      { MCP_HTTP_TOKEN: secret },
    );
    await waitUntil(() => toolNames(subject.app).includes('remote_get-sum'));
    subject.gateway.enqueue({ toolCalls: [{ name: 'remote_get-sum', arguments: { a: 2, b: 3 } }] });
    subject.gateway.enqueue({ text: 'Five.' });
    await askAndWait(subject, 'what is 2 + 3?', 'Five.');
    expect(toolMessages(chatBodies(subject.gateway)[1])).toEqual([
      '<tool_result tool="remote_get-sum" source="remote">\nThe sum of 2 and 3 is 5.\n</tool_result>',
    ]);
    expect(subject.app.config.secrets).toContain(secret);
    expect(subject.logOutput()).not.toContain(secret);
  });

  it('is marked down when it goes away, and reached again when it is back', async () => {
    everything = await startHttpEverything();
    const bot = botBuiltWith({ remote: { url: everything.url } });
    await waitUntil(() => toolNames(bot.app).includes('remote_echo'));
    await everything.close();
    await waitUntil(() => bot.app.mcpServers.states()[0]?.status === 'down');
    expect(toolNames(bot.app)).toEqual([]);
    expect(bot.logOutput()).toMatch(/MCP server remote is down \(the connection failed \(ECONNREFUSED\)\)/);

    everything = await startHttpEverything({ port: Number(new URL(everything.url).port) });
    await waitUntil(() => toolNames(bot.app).includes('remote_echo'), 15_000);
    expect(bot.app.mcpServers.states()[0]?.status).toBe('up');
  }, 30_000);

  it('that refuses its credentials is down with that reason, and the token is in no log line', async () => {
    let authorization: string | undefined;
    const locked = http.createServer((request, response) => {
      authorization = request.headers.authorization;
      response.writeHead(401, { 'www-authenticate': 'Bearer' }).end('unknown token');
    });
    await new Promise<void>((resolve) => locked.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => locked.close(resolve)));
    const token = 'wrong-token-5e6f7a8b9c';
    const bot = botBuiltWith(
      {
        locked: {
          url: `http://127.0.0.1:${(locked.address() as AddressInfo).port}/mcp`,
          headers: { Authorization: `Bearer ${placeholder('LOCKED_TOKEN')}` },
        },
      },
      { LOCKED_TOKEN: token },
    );
    await waitUntil(() => bot.app.mcpServers.states()[0]?.status === 'down');
    expect(authorization).toBe(`Bearer ${token}`);
    expect(bot.app.mcpServers.states()[0]?.problem).toBe('it refused the credentials in headers (HTTP 401)');
    expect(bot.logOutput()).toContain(
      'MCP server locked is down (it refused the credentials in headers (HTTP 401))',
    );
    expect(bot.logOutput()).not.toContain(token);
  });

  it('is refused when it sends parley to an origin the file does not declare, before a byte goes there', async () => {
    let requestsElsewhere = 0;
    const elsewhere = http.createServer((_request, response) => {
      requestsElsewhere += 1;
      response.end();
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    const elsewherePort = (elsewhere.address() as AddressInfo).port;
    const redirecting = http.createServer((_request, response) => {
      response.writeHead(307, { location: `http://127.0.0.1:${elsewherePort}/mcp` }).end();
    });
    await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
    cleanups.push(
      () => new Promise((resolve) => elsewhere.close(resolve)),
      () => new Promise((resolve) => redirecting.close(resolve)),
    );
    const declared = `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}/mcp`;
    const bot = botBuiltWith({ moved: { url: declared } });

    await waitUntil(() => bot.app.mcpServers.states()[0]?.status === 'down');
    expect(bot.app.mcpServers.states()[0]?.problem).toBe(
      `refused: a request would go to 127.0.0.1:${elsewherePort}, an origin the tools file does not declare`,
    );
    expect(requestsElsewhere).toBe(0);
    expect(toolNames(bot.app)).toEqual([]);
  });
});
