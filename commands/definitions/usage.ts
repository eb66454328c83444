import type { UsageTotals } from '../../src/conversation/usage-ledger.ts';
import { defineCommand } from '../define-command.ts';

const numberFormat = new Intl.NumberFormat('en-US');

function describe(totals: UsageTotals): string {
  if (totals.requests === 0) return 'nothing yet';
  const parts = [
    `${numberFormat.format(totals.totalTokens)} tokens (${numberFormat.format(totals.promptTokens)} in, ${numberFormat.format(totals.completionTokens)} out)`,
  ];
  if (totals.images > 0) parts.push(`${numberFormat.format(totals.images)} images`);
  parts.push(`${numberFormat.format(totals.requests)} requests`);
  return parts.join(', ');
}

export const usageCommand = defineCommand({
  name: 'usage',
  description: 'Tokens and images used by you and by this conversation',
  options: {},
  runsInConversationOrder: false,
  isAnswerPrivate: () => true,
  async run({ conversationKey, user, responder, services }) {
    const report = await services.usage.report({ userId: user.id, conversationKey, at: services.now() });
    await responder.send({
      card: {
        title: 'Usage',
        fields: [
          { name: 'You, today', value: describe(report.user.today) },
          { name: 'You, this month', value: describe(report.user.month) },
          { name: 'This conversation, today', value: describe(report.conversation.today) },
          { name: 'This conversation, this month', value: describe(report.conversation.month) },
        ],
        footer: 'As reported by the model gateway; days and months in UTC.',
      },
      isPrivate: true,
    });
  },
});
