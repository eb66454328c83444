import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createConversationSummaries } from '../../src/conversation/conversation-summaries.ts';
import type { StoredTurn } from '../../src/conversation/turn.ts';
import { type ConsoleUnderTest, startConsoleUnderTest } from '../support/console-under-test.ts';

/**
 * Issue 34, item 11: the retention sweep runs once an hour, so between two sweeps a conversation
 * still holds turns past HISTORY_RETENTION_DAYS. A reply must not send them to the model anyway,
 * nor a rolling summary whose newest turn is past it. Read before any sweep has run.
 */
const dayMs = 24 * 60 * 60_000;
const conversationKey = 'console:local:ada';

let bot: ConsoleUnderTest | undefined;
let directory: string | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
  if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
  directory = undefined;
});

function turn(role: 'user' | 'assistant', text: string, ageDays: number): StoredTurn {
  return {
    role,
    authorId: role === 'user' ? 'ada' : 'parley',
    authorName: role === 'user' ? 'ada' : 'parley',
    text,
    images: [],
    createdAt: new Date(Date.now() - ageDays * dayMs).toISOString(),
  };
}

const lastChatRequestText = (subject: ConsoleUnderTest) =>
  JSON.stringify(
    subject.fake.requests.filter((request) => request.path.endsWith('/chat/completions')).at(-1)?.body,
  );

describe('history past HISTORY_RETENTION_DAYS, read before the sweep', () => {
  it('is not sent to the model, nor a summary of it; what is within the retention is', async () => {
    directory = mkdtempSync(join(tmpdir(), 'parley-retention-read-'));
    bot = await startConsoleUnderTest({
      HISTORY_RETENTION_DAYS: '30',
      STORE_URL: `sqlite://${join(directory, 'parley.sqlite')}`,
    });
    await bot.app.history.append(conversationKey, [
      turn('user', 'ada: the launch code word is PELICAN', 45),
      turn('assistant', 'Noted: PELICAN.', 45),
      turn('user', 'ada: the ferry leaves from pier HARBOURNINE', 1),
      turn('assistant', 'Pier HARBOURNINE, noted.', 1),
    ]);
    // Older than every turn, so the turns are not left out as summarised: each rule is seen alone.
    await createConversationSummaries({ store: bot.app.store.namespace('summaries') }).set(conversationKey, {
      text: 'They agreed the vault code is OSPREY.',
      coversThrough: new Date(Date.now() - 50 * dayMs).toISOString(),
      foldedTurnCount: 6,
    });

    await bot.type('what do you remember?');

    const sent = lastChatRequestText(bot);
    expect(sent).toContain('what do you remember?');
    expect(sent).toContain('HARBOURNINE');
    expect(sent).not.toContain('PELICAN');
    expect(sent).not.toContain('OSPREY');
    // Nothing was swept: the store still holds the old turns until the sweep removes them.
    expect(
      (await bot.app.history.load(conversationKey)).some((stored) => stored.text.includes('PELICAN')),
    ).toBe(true);
  });

  it('does not fold expired turns into a new summary', async () => {
    // A small context, and old turns enough to fill it: counted, they would be folded (sent) at once.
    bot = await startConsoleUnderTest({
      HISTORY_RETENTION_DAYS: '30',
      CHAT_MODEL: 'small-context-model',
      REPLY_MAX_TOKENS: '200',
    });
    const filler = 'We talked about the harbour and the ferry times, code word PELICAN.';
    await bot.app.history.append(
      conversationKey,
      Array.from({ length: 120 }, (_, index) =>
        turn(index % 2 === 0 ? 'user' : 'assistant', `${index}: ${filler}`, 45),
      ),
    );
    await bot.type('what do you remember?');
    const requests = bot.fake.requests.filter((request) => request.path.endsWith('/chat/completions'));
    expect(requests.length).toBeGreaterThan(0);
    for (const request of requests) expect(JSON.stringify(request.body)).not.toContain('PELICAN');
  });

  it('keeps everything when the retention is off', async () => {
    bot = await startConsoleUnderTest({ HISTORY_RETENTION_DAYS: 'off' });
    await bot.app.history.append(conversationKey, [
      turn('user', 'ada: the launch code word is PELICAN', 400),
      turn('assistant', 'Noted: PELICAN.', 400),
    ]);
    await bot.type('what do you remember?');
    expect(lastChatRequestText(bot)).toContain('PELICAN');
  });
});
