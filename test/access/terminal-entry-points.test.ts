import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ConsoleUnderTest, startConsoleUnderTest } from '../support/console-under-test.ts';
import { type TerminalEntryPoint, terminalEntryPoints } from './entry-points.ts';

/**
 * The terminal's owner is its only person and an admin, so access never refuses there; budgets
 * still do, at every entry point, before any gateway request (issue 21).
 */
const typed: Record<Exclude<TerminalEntryPoint, 'scheduled-run'>, string> = {
  line: 'hello?',
  'command:imagine': '/imagine a fox',
  'command:extract': '/extract Invoice 42: two coffees, total 12.50',
};

describe('the terminal with its daily budget used up', () => {
  let bot: ConsoleUnderTest;
  beforeAll(async () => {
    bot = await startConsoleUnderTest({ BUDGET_USER_DAILY: '0' }, { scheduleClockStartMs: Date.now() });
  });
  afterAll(() => bot.close());

  it.each(terminalEntryPoints)(
    '%s is refused by the budget and makes no gateway request',
    async (entryPoint) => {
      const printed =
        entryPoint === 'scheduled-run' ? await scheduledRun(bot) : await bot.type(typed[entryPoint]);
      expect(printed).toMatch(/Not sent: your daily budget has 0 of 0 left/);
      expect(bot.fake.requests).toEqual([]);
    },
  );
});

/**
 * The owner's schedule, made before the budget ran out, comes due while the terminal is open: the
 * run is refused, says so on the screen and is paused. Returns what the terminal printed.
 */
async function scheduledRun(bot: ConsoleUnderTest): Promise<string> {
  const scheduling = bot.scheduling;
  if (scheduling === undefined) throw new Error('the bot runs no manual scheduling');
  const session = bot.openSession();
  const scheduleId = await scheduling.runScheduleOf({
    owner: { id: 'ada', name: 'ada', roleIds: [], isAdmin: true, context: 'terminal' },
    conversationKey: 'console:local:ada',
    what: 'hello?',
  });
  await vi.waitFor(async () => expect((await scheduling.scheduler.get(scheduleId))?.state).toBe('paused'));
  expect((await scheduling.scheduler.get(scheduleId))?.lastRun?.status).toBe('unpaid');
  await session.end();
  return session.printed();
}
