import { placeOfConversation } from '../conversation/turn.ts';
import type { UsageLedger } from '../conversation/usage-ledger.ts';
import type { KeptData } from './kept-data.ts';

/**
 * Spending, and the tool calls counted beside it, as kept data. Nothing here expires by
 * HISTORY_RETENTION_DAYS: the counters hold sums that budgets are checked against, and lapse with
 * their periods (40 days, 400 days). /forget takes the person's name off the top-spender lists of
 * the servers they wrote in (their spending stays counted as `forgotten`, so budgets and totals stay
 * right) and which tools they used off their own counters (the place's counters keep the calls,
 * without a name); /export gives their spending today and this month, tool calls by tool included.
 */
export function usageKeptData({ usage }: { usage: UsageLedger }): KeptData {
  return {
    name: 'usage',
    async forget({ person, workspace, conversationKeys, nowMs }) {
      const workspaces =
        workspace === undefined
          ? [...new Set(conversationKeys.map((key) => placeOfConversation(key).workspace))]
          : [workspace];
      await usage.forgetPerson({
        userId: person.userId,
        platform: person.platform,
        workspaces,
        at: new Date(nowMs),
      });
      return 0;
    },
    async export({ person, conversationKeys, nowMs }) {
      const report = await usage.report({
        userId: person.userId,
        conversationKey: conversationKeys[0] ?? `${person.platform}::`,
        at: new Date(nowMs),
      });
      return { today: report.user.today, thisMonth: report.user.month };
    },
  };
}
