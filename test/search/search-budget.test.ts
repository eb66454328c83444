import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeSearxng, startFakeSearxng } from '../fakes/searxng/fake-searxng.ts';
import { type ConsoleUnderTest, startConsoleUnderTest } from '../support/console-under-test.ts';

/**
 * Web search spends more than one model call per reply (tool rounds, then the answer), and each
 * round's prompt grows by what the tools found: the reply's hold covers every call as it is sent,
 * topping up or refusing, and settles to what all of them used.
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
  it('a model that asks for twenty searches a round cannot spend past the budget: calls are capped, each round is covered as sent', async () => {
    bot = await startConsoleUnderTest({
      SEARCH_URL: searxng.url,
      SEARCH_MAX_RESULTS: '20',
      CHAT_MODEL: 'tools-model',
      // tools-model costs 1 a million tokens in, 2 out; a call holds its prompt plus 1,024 tokens out.
      BUDGET_USER_DAILY: '0.012',
    });
    const longResult = (query: string, index: number) => ({
      url: `https://results.example/${encodeURIComponent(query)}/${index}`,
      title: `${query} ${index}`,
      content: `${query} `.repeat(100),
    });
    const queries = Array.from({ length: 20 }, (_, index) => `tide ${index}`);
    for (const query of queries) {
      searxng.setResults(
        query,
        Array.from({ length: 20 }, (_, index) => longResult(query, index)),
      );
    }
    const twentySearches = queries.map((query) => ({ name: 'web_search', arguments: { query } }));
    bot.fake.enqueue({ toolCalls: twentySearches });
    bot.fake.enqueue({ toolCalls: twentySearches });
    bot.fake.enqueue({ text: 'The tides, in short.' });
    const printed = await bot.type('when is high tide in Brest?');
    const report = await bot.services.usage.report({
      userId: 'ada',
      conversationKey: 'console:local:ada',
      at: new Date(),
    });

    // Three searches a round were run (TOOL_CALLS_PER_ROUND), the rest answered "not run".
    expect(searxng.queries).toEqual([...queries.slice(0, 3), ...queries.slice(0, 3)]);
    const secondRound = chatRequests()[1]?.body as { messages: Array<{ role: string; content: string }> };
    const toolAnswers = secondRound.messages.filter((message) => message.role === 'tool');
    expect(toolAnswers.filter((message) => message.content.startsWith('Not run:'))).toHaveLength(17);
    // The third round's prompt, grown by six pages of results, is more than the budget has left: it
    // is never sent, and the person is told why.
    expect(chatRequests()).toHaveLength(2);
    expect(printed).toMatch(/Not sent: your daily budget has 0\.0\d+ of 0\.012 left/);
    expect(report.user.today.costNanos).toBeLessThanOrEqual(12_000_000);
    expect(report.user.today.requests).toBe(2);
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
