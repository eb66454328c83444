import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The MCP conformance suite (`@modelcontextprotocol/conformance`, client mode) against parley's
 * connectors: for each scenario the suite starts its MCP server and authorization server on
 * loopback and runs parley-conformance-client.ts, which connects as a person does in chat (a Connect
 * link, the authorization page, parley's callback) and lets a tool call run as them; the suite's
 * checks (discovery, PKCE, registration, scopes, resource indicators, token endpoint
 * authentication…) must all pass.
 */
const root = resolve(import.meta.dirname, '../..');
const suite = join(root, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const client = join(root, 'test/conformance/parley-conformance-client.ts');

/** Every client auth scenario of the suite that applies to an interactive OAuth client. */
const scenarios = [
  'auth/metadata-default',
  'auth/metadata-var1',
  'auth/metadata-var2',
  'auth/metadata-var3',
  'auth/basic-cimd',
  'auth/scope-from-www-authenticate',
  'auth/scope-from-scopes-supported',
  'auth/scope-omitted-when-undefined',
  'auth/scope-step-up',
  'auth/scope-retry-limit',
  'auth/token-endpoint-auth-basic',
  'auth/token-endpoint-auth-post',
  'auth/token-endpoint-auth-none',
  'auth/pre-registration',
  'auth/2025-03-26-oauth-metadata-backcompat',
  'auth/2025-03-26-oauth-endpoint-fallback',
  'auth/resource-mismatch',
  'auth/offline-access-scope',
  'auth/offline-access-not-supported',
  // Without authorization: parley's client for the tools file's plain servers.
  'initialize',
  'tools_call',
  // A server's question mid-call, answered through parley's form (its defaults sent as filled in).
  'elicitation-sep1034-client-defaults',
];

/**
 * The suite's other client scenarios, and why they are not run against the connectors:
 * - `sse-retry`: judged by when the client reconnects after a closed event stream, to within tens of
 *   milliseconds of the server's `retry`: the project keeps timed assertions out of its tests (a
 *   loaded 2-core machine runs them);
 * - `auth/client-credentials-jwt`, `auth/client-credentials-basic`, `auth/cross-app-access-complete-flow`:
 *   extensions for machine clients acting as themselves; a connector always acts as a person (or a
 *   place's admin) who signed in.
 */
const notApplicable = [
  'sse-retry',
  'auth/client-credentials-jwt',
  'auth/client-credentials-basic',
  'auth/cross-app-access-complete-flow',
];

function runScenario(scenario: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolveRun) => {
    const child = spawn(
      process.execPath,
      [suite, 'client', '--command', `${process.execPath} ${client}`, '--scenario', scenario],
      // Its results/ folder goes to a temporary one, not the project.
      { cwd: mkdtempSync(join(tmpdir(), 'parley-conformance-')), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.once('exit', (code) => resolveRun({ code, output }));
  });
}

/** The client scenarios the installed suite lists (`conformance list`). */
function listedClientScenarios(): Promise<string[]> {
  return new Promise((resolveList, reject) => {
    const child = spawn(process.execPath, [suite, 'list'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.once('error', reject);
    child.once('exit', () => {
      const section = output.split(/Client scenarios[^\n]*\n/)[1] ?? '';
      resolveList([...section.matchAll(/^\s*- (\S+)/gm)].map((match) => match[1] ?? ''));
    });
  });
}

describe('the MCP conformance suite, client scenarios, against parley’s MCP clients', () => {
  it('runs every client scenario the suite lists, or names why not', async () => {
    const listed = await listedClientScenarios();
    expect(listed.length).toBeGreaterThan(0);
    expect([...listed].sort()).toEqual([...scenarios, ...notApplicable].sort());
  });

  it.each(scenarios)('%s passes', { timeout: 120_000 }, async (scenario) => {
    const { code, output } = await runScenario(scenario);
    const summary = output.split('\n').filter((line) => /^Passed:|OVERALL|FAILURE|WARNING/.test(line));
    expect(summary.join('\n')).toContain('OVERALL: PASSED');
    expect(code).toBe(0);
  });
});
