import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeGateway, startFakeGateway } from '../fakes/gateway/index.ts';
import { createConsoleClient } from '../support/console-client.ts';
import { startParley } from '../support/parley-process.ts';

/**
 * `npm start` with CONSOLE_PORT in the terminal: the real process starts the console beside the
 * chat and prints a one-time link for the person at the keyboard, who owns the bot; the link signs
 * them in to the terminal's own settings, changed through /config's code.
 */
const apiKey = 'terminal-console-key-0123456789';
let fake: FakeGateway;
let workDirectory: string;

beforeAll(async () => {
  fake = await startFakeGateway({ apiKey });
  workDirectory = mkdtempSync(join(tmpdir(), 'parley-terminal-console-'));
  writeFileSync(
    join(workDirectory, 'models.json'),
    JSON.stringify({ models: { 'chat-model': { vision: false } } }),
  );
});
afterAll(() => fake.close());

describe('the terminal’s link to the console', () => {
  it('is printed at start and signs the terminal’s owner in to its settings', async () => {
    const parley = startParley({
      environment: {
        GATEWAY_BASE_URL: fake.baseUrl,
        GATEWAY_API_KEY: apiKey,
        CHAT_MODEL: 'chat-model',
        MODEL_CAPABILITIES_FILE: join(workDirectory, 'models.json'),
        STORE_URL: `sqlite://${join(workDirectory, 'parley.sqlite')}`,
        LOG_FILE: join(workDirectory, 'parley.log'),
        CONSOLE_PORT: '0',
      },
    });
    try {
      await parley.waitForOutput(/web console .*: http:\/\/127\.0\.0\.1:\d+\/sign-in\/link\/[\w-]+\n/, {
        timeoutMs: 30_000,
      });
      const link = /(http:\/\/127\.0\.0\.1:\d+)(\/sign-in\/link\/[\w-]+)/.exec(parley.stdout());
      if (link === null) throw new Error('no link');
      const browser = createConsoleClient(link[1] ?? '');
      const page = await browser.get(link[2] ?? '');
      const token = /name="token" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
      const home = await browser.post('/sign-in/link', { token });
      expect(home.body).toContain('href="/places/console/local/settings"');
      const changed = await browser.post('/places/console/local/settings', {
        csrf: browser.csrfOf(home),
        setting: 'BUDGET_USER_DAILY',
        value: '3',
        channel: '',
      });
      expect(changed.status).toBe(200);
      expect(changed.body).toContain('BUDGET_USER_DAILY');
      expect(changed.body).toContain('is now 3');
      parley.endInput();
      expect(await parley.exited).toBe(0);
    } finally {
      await parley.stop();
    }
  }, 60_000);

  it('refuses to start on an address other machines reach without an https CONSOLE_PUBLIC_URL', async () => {
    const parley = startParley({
      environment: {
        GATEWAY_BASE_URL: fake.baseUrl,
        GATEWAY_API_KEY: apiKey,
        CHAT_MODEL: 'chat-model',
        MODEL_CAPABILITIES_FILE: join(workDirectory, 'models.json'),
        STORE_URL: `sqlite://${join(workDirectory, 'refused.sqlite')}`,
        LOG_FILE: join(workDirectory, 'refused.log'),
        CONSOLE_PORT: '0',
        CONSOLE_HOST: '0.0.0.0',
      },
    });
    try {
      parley.endInput();
      expect(await parley.exited).toBe(1);
      expect(parley.stderr()).toContain(
        'parley cannot start: CONSOLE_HOST 0.0.0.0 is reachable from other machines, so the console needs CONSOLE_PUBLIC_URL with https',
      );
    } finally {
      await parley.stop();
    }
  }, 60_000);
});
