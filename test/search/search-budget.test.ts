import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeSearxng, startFakeSearxng } from '../fakes/searxng/fake-searxng.ts';
import { type ConsoleUnderTest, startConsoleUnderTest } from '../support/console-under-test.ts';

/**
 * Web search spends more than one model call per reply (a tool round, then the answer), so a reply
 * that may search holds the worst case of every call it may make before the gateway is asked, and
 * settles to what all of them used.
 */
let searxng: FakeSearxng;
let bot: ConsoleUnderTest | undefined;
beforeAll(async () => {
  searxng = await startFakeSearxng();
});
afterAll(() => searxng.close());
afterEach(async () => {
  searxng.reset();
  await bot?.close();
  bot = undefined;
});

const chatRequests = () =>
  bot?.fake.requests.filter((request) => request.path.endsWith('/chat/completions')) ?? [];

describe('web search within budgets', () => {
  it('a budget that pays for one call but not for a searching reply refuses before the gateway is asked', async () => {
    bot = await startConsoleUnderTest({
      SEARCH_URL: searxng.url,
      CHAT_MODEL: 'chat-model',
      // One chat-model call holds about 0.00205 (1,024 tokens out at 2 a million); a reply that may
      // search holds three of them.
      BUDGET_USER_DAILY: '0.004',
    });
    const printed = await bot.type('when is high tide in Brest?');
    expect(printed).toMatch(
      /Not sent: your daily budget has 0\.004 of 0\.004 left; this needs up to 0\.006\d*/,
    );
    expect(chatRequests()).toEqual([]);
    expect(searxng.queries).toEqual([]);
  });

  it('the same budget answers when search is off: the hold is per call the reply may make', async () => {
    bot = await startConsoleUnderTest({ CHAT_MODEL: 'chat-model', BUDGET_USER_DAILY: '0.004' });
    bot.fake.enqueue({ text: 'Ask a tide table.' });
    const printed = await bot.type('when is high tide in Brest?');
    expect(printed).toContain('Ask a tide table.');
    expect(chatRequests()).toHaveLength(1);
  });

  it('settles to what every call of the reply used, the tool round included', async () => {
    bot = await startConsoleUnderTest({ SEARCH_URL: searxng.url, CHAT_MODEL: 'tools-model' });
    searxng.setResults('high tide Brest today', [
      { url: 'https://tides.example/brest', title: 'Tide times Brest', content: 'High tide 14:05.' },
    ]);
    bot.fake.enqueue({
      toolCalls: [{ name: 'web_search', arguments: { query: 'high tide Brest today' } }],
      usage: { prompt_tokens: 300, completion_tokens: 20 },
    });
    bot.fake.enqueue({ text: 'At 14:05 [1].', usage: { prompt_tokens: 700, completion_tokens: 30 } });
    await bot.type('when is high tide in Brest?');
    const report = await bot.services.usage.report({
      userId: 'ada',
      conversationKey: 'console:local:ada',
      at: new Date(),
    });
    expect(report.user.today.requests).toBe(2);
    expect(report.user.today.promptTokens).toBe(1_000);
    expect(report.user.today.completionTokens).toBe(50);
  });
});
