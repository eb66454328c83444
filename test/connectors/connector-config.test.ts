import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadParleyConfig } from '../../bin/platform-adapters.ts';
import { ConfigError } from '../../src/config.ts';

/** A connector in the tools file, as start-up reads it: its fields, and the variables it needs. */
const missingEnvFile = join(tmpdir(), 'parley-no-such-env-file');
const required = { GATEWAY_BASE_URL: 'http://127.0.0.1:9/api/v1', GATEWAY_API_KEY: 'secret-key-123' };
const key = 'a'.repeat(64);
/** `${NAME}` as the tools file writes it. */
const placeholder = (name: string) => `\${${name}}`;

function toolsFile(servers: unknown): string {
  const path = join(mkdtempSync(join(tmpdir(), 'parley-connectors-')), 'tools.json');
  writeFileSync(path, JSON.stringify({ servers }));
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

describe('a connector in the tools file', () => {
  it('reads auth and a pre-registered client, and scrubs the client secret and the key from logs', () => {
    const config = load({
      CRM_SECRET: 'crm-client-secret-0123456789',
      PUBLIC_URL: 'https://parley.example.com',
      CONNECTOR_TOKENS_KEY: key,
      TOOLS_FILE: toolsFile({
        crm: {
          url: 'https://mcp.crm.example/mcp',
          auth: 'owner',
          oauth: { clientId: 'parley-1', clientSecret: placeholder('CRM_SECRET'), scope: 'tools' },
        },
      }),
    });
    expect(config.tools.servers[0]?.transport).toEqual({
      kind: 'http',
      url: 'https://mcp.crm.example/mcp',
      headers: {},
      auth: {
        kind: 'owner',
        clientId: 'parley-1',
        clientSecret: 'crm-client-secret-0123456789',
        scope: 'tools',
      },
    });
    expect(config.tools.connectors?.publicUrl).toBe('https://parley.example.com');
    expect(config.secrets).toEqual(expect.arrayContaining(['crm-client-secret-0123456789', key]));
  });

  it('needs PUBLIC_URL and CONNECTOR_TOKENS_KEY, naming them and never a value', () => {
    const problems = problemsOf({
      TOOLS_FILE: toolsFile({ crm: { url: 'https://mcp.crm.example/mcp', auth: 'person' } }),
    });
    expect(problems).toContain("PUBLIC_URL: the tools file's crm needs it");
    expect(problems).toContain("CONNECTOR_TOKENS_KEY: the tools file's crm needs a key");
    const badKey = problemsOf({
      PUBLIC_URL: 'https://parley.example.com',
      CONNECTOR_TOKENS_KEY: 'too-short-secret',
      TOOLS_FILE: toolsFile({ crm: { url: 'https://mcp.crm.example/mcp', auth: 'person' } }),
    });
    expect(badKey).toContain('CONNECTOR_TOKENS_KEY');
    expect(badKey).not.toContain('too-short-secret');
  });

  it('refuses an unknown auth, and oauth without auth', () => {
    const problems = problemsOf({
      TOOLS_FILE: toolsFile({
        crm: { url: 'https://mcp.crm.example/mcp', auth: 'everyone' },
        wiki: { url: 'https://mcp.wiki.example/mcp', oauth: { clientId: 'x' } },
      }),
    });
    expect(problems).toContain('servers.crm.auth');
    expect(problems).toContain('servers.wiki.oauth is only read with auth');
  });

  it('needs neither variable without a connector', () => {
    expect(
      load({ TOOLS_FILE: toolsFile({ docs: { url: 'https://mcp.example/mcp' } }) }).tools.connectors,
    ).toBeUndefined();
  });
});
