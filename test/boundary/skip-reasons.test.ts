import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/**
 * `npm test` ends with why tests were skipped and which variable turns them on (issue 11): vitest runs
 * a fixture suite that skips like the Redis and Postgres suites, with the reporter of vitest.config.ts.
 */
const run = promisify(execFile);
const repositoryRoot = fileURLToPath(new URL('../..', import.meta.url));
const fixtureConfig = fileURLToPath(new URL('../fixtures/skip-reasons/vitest.config.ts', import.meta.url));

async function runFixture(environment: Record<string, string | undefined>): Promise<string> {
  const { stdout } = await run(
    process.execPath,
    [
      fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url)),
      'run',
      '--config',
      fixtureConfig,
    ],
    { cwd: repositoryRoot, env: { ...process.env, ...environment, CI: 'true' }, timeout: 60_000 },
  );
  return stdout;
}

describe('the skipped-tests report', () => {
  it('names the skipped suite, how many tests it skipped, and the variable that turns it on', async () => {
    const stdout = await runFixture({ PARLEY_FIXTURE_SERVER_URL: '' });
    expect(stdout).toContain(
      ' Skipped 2 tests: a store on a server: PARLEY_FIXTURE_SERVER_URL is not set; run with PARLEY_FIXTURE_SERVER_URL=…\n',
    );
  }, 60_000);

  it('says nothing when nothing was skipped', async () => {
    const stdout = await runFixture({ PARLEY_FIXTURE_SERVER_URL: 'redis://example.invalid' });
    expect(stdout).not.toContain('Skipped');
  }, 60_000);
});
