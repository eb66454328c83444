import { afterEach, describe, expect, it } from 'vitest';
import { type ConsoleUnderTest, startConsoleUnderTest } from '../support/console-under-test.ts';

/**
 * Every budget level and measure end to end in the terminal: the bot as `npm start` builds it, against
 * the fake gateway. The test catalog prices chat-model at 1 a million tokens in and 2 out, and
 * image-model at 0.04 an image; a chat reply holds its prompt plus REPLY_MAX_TOKENS (1,024) before the
 * gateway is called, so it holds a little over 0.002.
 */
let under: ConsoleUnderTest;
afterEach(() => under.close());

const chatRequests = () =>
  under.fake.requests.filter((request) => request.path.endsWith('/chat/completions'));
const imageRequests = () =>
  under.fake.requests.filter((request) => request.path.endsWith('/images/generations'));

describe('budgets at every level', () => {
  it('refuses by the tightest budget that applies and names it (the channel, not the roomy personal one)', async () => {
    under = await startConsoleUnderTest({ BUDGET_USER_DAILY: '5', BUDGET_CHANNEL_DAILY: '0.001' });
    const printed = await under.type('hello');
    expect(printed).toMatch(
      /Not sent: this channel's daily budget has 0\.001 of 0\.001 left; this needs up to 0\.002\d*\. It resets at midnight UTC/,
    );
    expect(chatRequests()).toEqual([]);
  });

  it("holds the whole process to the global cap, which says it is parley's overall budget", async () => {
    under = await startConsoleUnderTest({ BUDGET_GLOBAL_DAILY: '0.001' });
    const printed = await under.type('hello');
    expect(printed).toContain("Not sent: parley's overall daily budget has 0.001 of 0.001 left");
    expect(chatRequests()).toEqual([]);
  });

  it('counts a monthly budget over the month, with its own reset', async () => {
    under = await startConsoleUnderTest({ BUDGET_USER_MONTHLY: '0.001' });
    const printed = await under.type('hello');
    expect(printed).toMatch(
      /Not sent: your monthly budget has 0\.001 of 0\.001 left; this needs up to 0\.002\d*\. It resets on 1 [A-Z][a-z]+ \(UTC\)/,
    );
    expect(chatRequests()).toEqual([]);
  });

  it('settles a reply to the usage the gateway reported, so the next one is measured against what was spent', async () => {
    // 0.0035 holds one reply's worst case (about 0.00205) but not two; after settling to the real cost
    // (1,000 in and 100 out: 0.0012) the second fits, and after that the third does not.
    under = await startConsoleUnderTest({ BUDGET_USER_DAILY: '0.0035' });
    under.fake.enqueue({ text: 'one', usage: { prompt_tokens: 1_000, completion_tokens: 100 } });
    under.fake.enqueue({ text: 'two', usage: { prompt_tokens: 1_000, completion_tokens: 100 } });
    const printed = await under.type('first', 'second', 'third');
    expect(chatRequests()).toHaveLength(2);
    expect(printed).toMatch(
      /Not sent: your daily budget has 0\.0011 of 0\.0035 left; this needs up to 0\.002/,
    );
  });

  it('lets go of the hold when the gateway refuses the request, so a failure costs the person nothing', async () => {
    under = await startConsoleUnderTest({ BUDGET_USER_DAILY: '0.003' });
    // A 400 is not retried by the SDK: one refusal, then the default reply.
    under.fake.enqueue({
      error: {
        status: 400,
        body: { error: { message: 'Bad request', type: 'invalid_request_error', code: 'bad_request' } },
      },
    });
    const printed = await under.type('first', 'second');
    expect(chatRequests()).toHaveLength(2);
    expect(printed).not.toContain('Not sent');
  });

  it('counts images against the image budget: the refusal says how many are left and how many were asked for', async () => {
    under = await startConsoleUnderTest({ BUDGET_IMAGES_USER_DAILY: '3' });
    const printed = await under.type('/imagine a fox --count 2', '/imagine a fox --count 2');
    expect(imageRequests()).toHaveLength(1);
    expect(printed).toContain(
      'Not sent: your daily image budget has 1 image of 3 images left; this needs 2 images.',
    );
  });

  it('counts tokens against a token budget from the usage the gateway reported', async () => {
    under = await startConsoleUnderTest({ BUDGET_TOKENS_USER_DAILY: '2000' });
    under.fake.enqueue({ text: 'ok', usage: { prompt_tokens: 1_500, completion_tokens: 400 } });
    const printed = await under.type('first', 'second');
    expect(chatRequests()).toHaveLength(1);
    expect(printed).toMatch(/Not sent: your daily token budget has 100 tokens of 2,000 tokens left/);
  });
});
