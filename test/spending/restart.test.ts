import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type ConsoleUnderTest, startConsoleUnderTest } from '../support/console-under-test.ts';

/** Spending, /config's overrides and its log survive a restart on the SQLite store. */
const running: ConsoleUnderTest[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((bot) => bot.close()));
});

async function start(storeUrl: string): Promise<ConsoleUnderTest> {
  const bot = await startConsoleUnderTest({ STORE_URL: storeUrl });
  running.push(bot);
  return bot;
}

describe('spend and access across a restart', () => {
  it('keeps what was spent and what /config set, and the budget still holds', async () => {
    const storeUrl = `sqlite://${join(mkdtempSync(join(tmpdir(), 'parley-spend-restart-')), 'parley.sqlite')}`;
    const first = await start(storeUrl);
    // 40,000 tokens in and 10,000 out at 1 and 2 a million: 0.06.
    first.fake.enqueue({ text: 'Noted.', usage: { prompt_tokens: 40_000, completion_tokens: 10_000 } });
    const before = await first.type('remember this', '/config set BUDGET_USER_DAILY 0.05');
    expect(before).toContain('Noted.');
    expect(before).toContain('✅ BUDGET_USER_DAILY for this terminal is now 0.05.');
    await first.close();
    running.splice(0);

    const second = await start(storeUrl);
    const after = await second.type('and now?', '/usage', '/config show');
    expect(after).toMatch(
      /Not sent: your daily budget has 0 of 0\.05 left; this needs up to 0\.00\d+\. It resets at midnight UTC/,
    );
    expect(second.fake.requests).toEqual([]);
    expect(after).toContain('**You, today**\n0.06 spent, 50,000 tokens (40,000 in, 10,000 out), 1 requests');
    expect(after).toContain('your daily budget: 0 of 0.05 left; resets at midnight UTC');
    expect(after).toMatch(/`BUDGET_USER_DAILY` 0\.05 _\(this terminal\)_/);
    expect(after).toMatch(/BUDGET_USER_DAILY \(server\) by ada, \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
  });
});
