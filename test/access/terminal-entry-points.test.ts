import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleUnderTest, startConsoleUnderTest } from '../support/console-under-test.ts';
import { type TerminalEntryPoint, terminalEntryPoints } from './entry-points.ts';

/**
 * The terminal's owner is its only person and an admin, so access never refuses there; budgets
 * still do, at every entry point, before any gateway request (issue 21).
 */
const typed: Record<TerminalEntryPoint, string> = {
  line: 'hello?',
  'command:imagine': '/imagine a fox',
  'command:extract': '/extract Invoice 42: two coffees, total 12.50',
};

describe('the terminal with its daily budget used up', () => {
  let bot: ConsoleUnderTest;
  beforeAll(async () => {
    bot = await startConsoleUnderTest({ BUDGET_USER_DAILY: '0' });
  });
  afterAll(() => bot.close());

  it.each(terminalEntryPoints)(
    '%s is refused by the budget and makes no gateway request',
    async (entryPoint) => {
      const printed = await bot.type(typed[entryPoint]);
      expect(printed).toMatch(/Not sent: your daily budget has 0 of 0 left/);
      expect(bot.fake.requests).toEqual([]);
    },
  );
});
