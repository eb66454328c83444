import { afterEach, describe, expect, it } from 'vitest';
import { type ConsoleUnderTest, startConsoleUnderTest } from '../support/console-under-test.ts';

/**
 * A conversation that outgrows its model's context keeps what was said early: older turns are
 * folded into a rolling summary by one held model call, and the summary travels with the context as
 * a note. The fake gateway's default reply quotes what it was given, so its "summary" keeps the
 * transcript's words: what this proves is the plumbing (fold, keep, send, count, forget), not a
 * model's skill at summarising.
 */
let bot: ConsoleUnderTest | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});

type ChatBody = { messages: Array<{ role: string; content: unknown }> };
const bodies = (subject: ConsoleUnderTest) =>
  subject.fake.requests
    .filter((request) => request.path.endsWith('/chat/completions'))
    .map((request) => request.body as ChatBody);
const isFold = (body: ChatBody) => String(body.messages[0]?.content).includes('running summary');

describe('a conversation longer than its context', () => {
  it('still has the facts of turn 5 at turn 300, through its summary, and /reset forgets it', async () => {
    // The fake's "summary" quotes its whole input, so it needs more room than a real one would.
    bot = await startConsoleUnderTest({
      CHAT_MODEL: 'small-context-model',
      REPLY_MAX_TOKENS: '200',
      SUMMARY_MAX_CHARACTERS: '4000',
    });
    const filler = 'We talked about the harbour and the ferry times.';
    const lines = Array.from({ length: 150 }, (_, index) =>
      index === 2 ? 'Remember this: the launch code word is PELICAN.' : `Message ${index + 1}. ${filler}`,
    );
    await bot.type(...lines);
    const all = bodies(bot);
    const replies = all.filter((body) => !isFold(body));
    const folds = all.filter(isFold);
    expect(replies).toHaveLength(150);
    expect(folds.length).toBeGreaterThan(5);
    // The last reply's context no longer shows turn 5 itself, but its summary holds the fact.
    const last = replies.at(-1);
    const shown = (last?.messages ?? []).slice(1).map((message) => String(message.content));
    expect(shown.some((text) => text.includes('PELICAN'))).toBe(false);
    expect(String(last?.messages[0]?.content)).toMatch(
      /Earlier in this conversation \(a summary of \d+ older messages/,
    );
    expect(String(last?.messages[0]?.content)).toContain('PELICAN');
    // Every summary call was held and counted like any other request.
    const usage = await bot.services.usage.report({
      userId: 'ada',
      conversationKey: 'console:local:ada',
      at: new Date(),
    });
    expect(usage.user.today.requests).toBe(150 + folds.length);

    await bot.type('/reset', 'what was the code word?');
    const afterReset = bodies(bot).at(-1);
    expect(JSON.stringify(afterReset?.messages)).not.toContain('PELICAN');
  }, 120_000);
});
