import { afterEach, describe, expect, it } from 'vitest';
import { type ConsoleUnderTest, startConsoleUnderTest } from '../support/console-under-test.ts';

/** The request rate, the gateway's own 402, structured commands and /usage, in the terminal. */
let under: ConsoleUnderTest;
afterEach(() => under.close());

const chatRequests = () =>
  under.fake.requests.filter((request) => request.path.endsWith('/chat/completions'));

describe('spending in the terminal', () => {
  it('asks a person who sends faster than RATE_USER_PER_MINUTE to slow down, without calling the gateway', async () => {
    under = await startConsoleUnderTest({ RATE_USER_PER_MINUTE: '2' });
    const printed = await under.type('one', 'two', 'three');
    expect(printed).toMatch(
      /⚠ Slow down a little, please: you are sending requests faster than this server allows\. Try again in \d+ s\./,
    );
    expect(chatRequests()).toHaveLength(2);
  });

  it("tells the channel about the gateway's empty balance once an hour, with the admin hint", async () => {
    under = await startConsoleUnderTest();
    const balance = {
      status: 402,
      body: { error: { message: 'Insufficient balance', type: 'billing', code: 'insufficient_balance' } },
    };
    under.fake.enqueue({ error: balance });
    under.fake.enqueue({ error: balance });
    const printed = await under.type('one', 'two');
    expect(printed.match(/An admin needs to top it up/g)).toHaveLength(1);
    expect(printed).toContain('The model service has no balance left right now.');
  });

  it('holds a structured command to its budget too, before the gateway', async () => {
    under = await startConsoleUnderTest({ BUDGET_USER_DAILY: '0.001' });
    const printed = await under.type('/extract name: Ada Lovelace, born 1815');
    // Its worst case: the prompt and 4,096 tokens, twice (a repair request), at 2 a million out.
    expect(printed).toMatch(
      /⚠ Not sent: your daily budget has 0\.001 of 0\.001 left; this needs up to 0\.01\d+/,
    );
    expect(chatRequests()).toEqual([]);
  });

  it('/usage shows an admin anyone, and the top spenders here', async () => {
    under = await startConsoleUnderTest();
    under.fake.enqueue({ text: 'ok', usage: { prompt_tokens: 1_000, completion_tokens: 500 } });
    const printed = await under.type('hello', '/usage --top', '/usage --user bob');
    expect(printed).toMatch(/\*\*Top people, today\*\*\n1\. `ada` 0\.002/);
    expect(printed).toMatch(/\*\*Top channels, today\*\*\n1\. `ada` 0\.002/);
    expect(printed).toContain('Usage of bob');
    expect(printed).toContain('**bob, today**\nnothing yet');
  });
});
