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
        deadlineMs: 20_000,
        maxResultCharacters: 5_000,
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
        deadlineMs: 60_000,
        maxResultCharacters: 20_000,
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

describe('tool names', () => {
  it('are <server>_<tool> within OpenAI’s function-name rules', () => {
    expect(toolName('files', 'read_file')).toBe('files_read_file');
    expect(toolName('everything', 'get-sum')).toBe('everything_get-sum');
    expect(toolName('docs', 'search.pages/v2 beta')).toBe('docs_search_pages_v2_beta');
    expect(toolName('docs', 'x'.repeat(100))).toHaveLength(64);
  });
});
