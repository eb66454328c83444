import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadParleyConfig } from '../../bin/platform-adapters.ts';
import { ConfigError, projectRoot } from '../../src/config.ts';
import { toolName } from '../../src/tools/mcp-tool.ts';

/** The tools file as start-up reads it: through loadConfig, like every other setting. */
const missingEnvFile = join(tmpdir(), 'parley-no-such-env-file');
const required = { GATEWAY_BASE_URL: 'http://127.0.0.1:9/api/v1', GATEWAY_API_KEY: 'secret-key-123' };
const placeholder = (name: string) => `\${${name}}`;

function fileWith(content: unknown): string {
  const path = join(mkdtempSync(join(tmpdir(), 'parley-tools-file-')), 'tools.json');
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

function load(environment: Record<string, string>) {
  return loadParleyConfig({ environment: { ...required, ...environment }, envFilePath: missingEnvFile });
}

function problemsOf(environment: Record<string, string>): string {
  try {
    load(environment);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('TOOLS_FILE', () => {
  it('reads stdio and HTTP servers with their options, filling placeholders and scrubbing what it filled', () => {
    const config = load({
      DOCS_TOKEN: 'docs-token-abcdef123456',
      FILES_ROOT: '/srv/shared',
      TOOLS_FILE: fileWith({
        servers: {
          files: {
            command: 'npx',
            args: ['-y', '@modelcontextprotocol/server-filesystem', placeholder('FILES_ROOT')],
            cwd: 'data/files',
            tools: ['read_*', 'list_directory'],
            annotations: { '*': { openWorldHint: false }, move_file: { destructiveHint: true } },
            pricePerCall: 0.002,
            deadlineSeconds: 20,
            maxResultCharacters: 5_000,
          },
          docs: {
            url: 'https://mcp.example/mcp',
            headers: { Authorization: `Bearer ${placeholder('DOCS_TOKEN')}` },
            // Each tool its price, * the rest (here free).
            pricePerCall: { '*': 0, create_issue: 0.05 },
          },
        },
      }),
    });
    expect(config.tools.servers).toEqual([
      {
        name: 'files',
        transport: {
          kind: 'stdio',
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-filesystem', '/srv/shared'],
          env: {},
          cwd: join(projectRoot, 'data/files'),
        },
        enabledTools: ['read_*', 'list_directory'],
        annotationOverrides: { '*': { openWorldHint: false }, move_file: { destructiveHint: true } },
        priceNanos: 2_000_000,
        priceNanosByTool: {},
        deadlineMs: 20_000,
        maxResultCharacters: 5_000,
        variables: [{ name: 'FILES_ROOT', field: 'args' }],
      },
      {
        name: 'docs',
        transport: {
          kind: 'http',
          url: 'https://mcp.example/mcp',
          headers: { Authorization: 'Bearer docs-token-abcdef123456' },
        },
        enabledTools: undefined,
        annotationOverrides: {},
        priceNanos: 0,
        priceNanosByTool: { create_issue: 50_000_000 },
        deadlineMs: 60_000,
        maxResultCharacters: 20_000,
        variables: [{ name: 'DOCS_TOKEN', field: 'headers' }],
      },
    ]);
    expect(config.secrets).toEqual(
      expect.arrayContaining(['docs-token-abcdef123456', 'Bearer docs-token-abcdef123456', '/srv/shared']),
    );
  });

  it('means no servers when the default file is missing, and is an error when a named one is', () => {
    expect(load({}).tools.servers).toEqual([]);
    expect(problemsOf({ TOOLS_FILE: '/nope/tools.json' })).toMatch(
      /TOOLS_FILE \/nope\/tools\.json does not exist: point it at a JSON file of MCP servers/,
    );
  });

  it('names what is wrong, server by server, and never a secret', () => {
    const message = problemsOf({
      HALF_SET: 'half-secret-value-987654',
      TOOLS_FILE: fileWith({
        servers: {
          Files: { command: 'x' },
          both: { command: 'x', url: 'https://a.example/mcp' },
          neither: { args: [] },
          absent: { url: 'https://a.example/mcp', headers: { 'X-Key': placeholder('NOT_SET_ANYWHERE') } },
          typo: { command: 'x', deadline: 5 },
          leaky: { url: `https://user:${placeholder('HALF_SET')}@a.example/mcp` },
          plain: { url: 'ftp://a.example/mcp' },
        },
      }),
    });
    expect(message).toContain('server name "Files" must be lowercase letters, digits and -');
    expect(message).toContain('servers.both needs either command');
    expect(message).toContain('not both');
    expect(message).toContain('servers.neither needs either command');
    expect(message).toContain(`servers.absent names ${placeholder('NOT_SET_ANYWHERE')}, which is not set`);
    expect(message).toMatch(/servers\.typo .*deadline/);
    expect(message).toContain('servers.leaky.url must not hold credentials: use headers');
    expect(message).toContain('servers.plain.url must be an http(s) URL');
    expect(message).not.toContain('half-secret-value-987654');
  });

  it('says when the file is not JSON', () => {
    expect(problemsOf({ TOOLS_FILE: fileWith('{ "servers": ') })).toMatch(/TOOLS_FILE .* is not valid JSON/);
  });
});

describe('parley’s own variables as placeholders', () => {
  // The issue's four leaks: the gateway key into a header, a platform token into a URL, another into a
  // stdio server's arguments (visible in `ps`), the store's URL with its password into its environment.
  const parleyValues = {
    GATEWAY_API_KEY: required.GATEWAY_API_KEY,
    DISCORD_TOKEN: 'discord-token-aaaa.bbbb.cccc',
    SLACK_BOT_TOKEN: 'xoxb-1111-2222-slack-token',
    SLACK_SIGNING_SECRET: 'slack-signing-secret-3333',
    STORE_URL: 'postgres://parley:store-password-4444@127.0.0.1:5432/parley',
  };
  const leakyServers = (allow: (variable: string) => Record<string, unknown> = () => ({})) => ({
    gateway: {
      url: 'https://mcp.example/mcp',
      headers: { Authorization: `Bearer ${placeholder('GATEWAY_API_KEY')}` },
      ...allow('GATEWAY_API_KEY'),
    },
    discord: { url: `https://mcp.example/${placeholder('DISCORD_TOKEN')}/mcp`, ...allow('DISCORD_TOKEN') },
    slack: {
      command: 'slack-mcp',
      args: ['--token', placeholder('SLACK_BOT_TOKEN')],
      ...allow('SLACK_BOT_TOKEN'),
    },
    store: { command: 'store-mcp', env: { DATABASE: placeholder('STORE_URL') }, ...allow('STORE_URL') },
  });

  it('refuses each, one line naming the server and the variable, and no value', () => {
    const message = problemsOf({ ...parleyValues, TOOLS_FILE: fileWith({ servers: leakyServers() }) });
    const refusals = message.split('\n').filter((line) => line.includes("one of parley's own variables"));
    expect(refusals).toHaveLength(4);
    for (const [server, variable] of [
      ['gateway', 'GATEWAY_API_KEY'],
      ['discord', 'DISCORD_TOKEN'],
      ['slack', 'SLACK_BOT_TOKEN'],
      ['store', 'STORE_URL'],
    ]) {
      expect(message).toContain(
        `servers.${server} names ${placeholder(variable ?? '')}, one of parley's own variables, refused unless the server lists it in "allowParleyVariables"`,
      );
    }
    for (const value of Object.values(parleyValues)) expect(message).not.toContain(value);
  });

  it('fills them where the server lists them in allowParleyVariables, and only those', () => {
    const config = load({
      ...parleyValues,
      TOOLS_FILE: fileWith({
        servers: leakyServers((variable) => ({ allowParleyVariables: [variable] })),
      }),
    });
    const byName = Object.fromEntries(config.tools.servers.map((server) => [server.name, server.transport]));
    expect(byName.gateway).toMatchObject({
      headers: { Authorization: `Bearer ${parleyValues.GATEWAY_API_KEY}` },
    });
    expect(byName.discord).toMatchObject({ url: `https://mcp.example/${parleyValues.DISCORD_TOKEN}/mcp` });
    expect(byName.slack).toMatchObject({ args: ['--token', parleyValues.SLACK_BOT_TOKEN] });
    expect(byName.store).toMatchObject({ env: { DATABASE: parleyValues.STORE_URL } });
    // One server's yes is not another's.
    const message = problemsOf({
      ...parleyValues,
      TOOLS_FILE: fileWith({
        servers: {
          allowed: {
            command: 'x',
            args: [placeholder('SLACK_BOT_TOKEN')],
            allowParleyVariables: ['SLACK_BOT_TOKEN'],
          },
          other: { command: 'x', args: [placeholder('SLACK_BOT_TOKEN')] },
        },
      }),
    });
    expect(message).toContain(
      `servers.other names ${placeholder('SLACK_BOT_TOKEN')}, one of parley's own variables`,
    );
    expect(message).not.toContain('servers.allowed');
  });

  it('says when allowParleyVariables names what parley does not read, or is not a list of names', () => {
    const message = problemsOf({
      TOOLS_FILE: fileWith({
        servers: {
          typo: { command: 'x', allowParleyVariables: ['GATEWAY_API_KEYS'] },
          shape: { command: 'x', allowParleyVariables: 'GATEWAY_API_KEY' },
        },
      }),
    });
    expect(message).toContain(
      "servers.typo.allowParleyVariables names GATEWAY_API_KEYS, which is not one of parley's variables",
    );
    expect(message).toMatch(/servers\.shape\.allowParleyVariables .*array/);
  });
});

describe('tool names', () => {
  it('are <server>_<tool> within OpenAI’s function-name rules', () => {
    expect(toolName('files', 'read_file')).toBe('files_read_file');
    expect(toolName('everything', 'get-sum')).toBe('everything_get-sum');
    expect(toolName('docs', 'search.pages/v2 beta')).toBe('docs_search_pages_v2_beta');
    expect(toolName('docs', 'x'.repeat(100))).toHaveLength(64);
  });
});
