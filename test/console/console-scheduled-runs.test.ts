import { afterEach, describe, expect, it, vi } from 'vitest';
import { type ConsoleUnderTest, startConsoleUnderTest } from '../support/console-under-test.ts';

/**
 * Scheduled runs on the terminal: one conversation, one screen. A run that comes due while a typed
 * line is being answered waits for that answer to end, then prints on lines of its own (issue 28).
 */
let bot: ConsoleUnderTest | undefined;
afterEach(() => bot?.close());

describe('scheduled runs on the terminal', () => {
  it('holds a reminder that comes due while a reply streams until the reply has ended', async () => {
    bot = await startConsoleUnderTest({}, { scheduleClockStartMs: Date.parse('2025-06-02T06:00:00Z') });
    const { fake, scheduling } = bot;
    if (scheduling === undefined) throw new Error('the bot runs no manual scheduling');
    const session = bot.openSession();

    session.typeLine('/remind in 1m stretch your legs');
    // The terminal is the DM too: the reminder comes here.
    await vi.waitFor(() =>
      expect(session.printed()).toMatch(
        /I will remind you “stretch your legs” on Mon 2 Jun, 06:01 \(UTC\), here\./,
      ),
    );

    const story =
      'Once upon a time a lighthouse keeper counted the ships that passed, one by one, until the fog lifted.';
    fake.enqueue({ text: story, chunkSize: 6, delayBetweenChunksMs: 60 });
    session.typeLine('tell me a story');
    await vi.waitFor(() => expect(session.printed()).toContain('Once upon'));
    expect(session.printed()).not.toContain(story);
    // The reminder comes due in the middle of the story.
    await scheduling.clock.advanceBy(61_000);
    await vi.waitFor(() => expect(session.printed()).toContain('⏰ Reminder: stretch your legs'), {
      timeout: 10_000,
    });
    const printed = session.printed();
    // The story is whole, and the reminder comes after it, on a line of its own.
    expect(printed).toContain(story);
    expect(printed.indexOf('⏰ Reminder')).toBeGreaterThan(printed.indexOf(story) + story.length);
    expect(printed).toMatch(/\n⏰ Reminder: stretch your legs\n/);

    // A line typed after the reminder is answered as usual, below it.
    fake.enqueue({ text: 'Done stretching?' });
    session.typeLine('I stretched');
    await vi.waitFor(() => expect(session.printed()).toContain('Done stretching?'));
    expect(session.printed().indexOf('Done stretching?')).toBeGreaterThan(
      session.printed().indexOf('⏰ Reminder'),
    );
    await session.end();
  }, 30_000);
});
