import { placeOfConversation } from '../../src/conversation/turn.ts';
import type { UsageTotals } from '../../src/conversation/usage-ledger.ts';
import type { Card, CardField } from '../../src/delivery/card.ts';
import { formatCost } from '../../src/spending/prices.ts';
import { booleanOption, userOption } from '../command-options.ts';
import { type CommandServices, defineCommand } from '../define-command.ts';

const numberFormat = new Intl.NumberFormat('en-US');

/** The most tools named in one line of /usage; the rest are summed up. */
const toolsShown = 8;

/** "web_search 3 (1 failed), files_write_file 1", the most called first. */
function describeToolCalls(toolCalls: UsageTotals['toolCalls']): string {
  const byCalls = Object.entries(toolCalls).sort(
    ([firstName, first], [secondName, second]) =>
      second.calls - first.calls || firstName.localeCompare(secondName),
  );
  const named = byCalls
    .slice(0, toolsShown)
    .map(
      ([name, count]) =>
        `\`${name}\` ${numberFormat.format(count.calls)}${count.errors > 0 ? ` (${numberFormat.format(count.errors)} failed)` : ''}`,
    );
  const others = byCalls.slice(toolsShown);
  if (others.length > 0) {
    const calls = others.reduce((sum, [, count]) => sum + count.calls, 0);
    named.push(`${others.length} more tools ${numberFormat.format(calls)}`);
  }
  return named.join(', ');
}

function describe(totals: UsageTotals): string {
  const hasToolCalls = Object.keys(totals.toolCalls).length > 0;
  if (totals.requests === 0 && !hasToolCalls) return 'nothing yet';
  const parts = [
    `${formatCost(totals.costNanos)} spent`,
    `${numberFormat.format(totals.totalTokens)} tokens (${numberFormat.format(totals.promptTokens)} in, ${numberFormat.format(totals.completionTokens)} out)`,
  ];
  if (totals.images > 0) parts.push(`${numberFormat.format(totals.images)} images`);
  parts.push(`${numberFormat.format(totals.requests)} requests`);
  const spending = parts.join(', ');
  return hasToolCalls ? `${spending}\n🔧 tool calls: ${describeToolCalls(totals.toolCalls)}` : spending;
}

export const usageCommand = defineCommand({
  name: 'usage',
  description: 'What you spent and what is left of your budgets; admins: --top, or someone else',
  options: {
    user: userOption({ description: 'Whose usage to show (admins)' }),
    top: booleanOption({
      description: 'Who and which channels spent most here, today and this month (admins)',
    }),
  },
  runsInConversationOrder: false,
  isAnswerPrivate: () => true,
  async run({ input, conversationKey, user, responder, services }) {
    const isAboutOthers = input.top || (input.user !== undefined && input.user !== user.id);
    if (isAboutOthers && !user.isAdmin) {
      await responder.send({ text: 'Only server admins can see what others spent.', isPrivate: true });
      return;
    }
    const card = input.top
      ? await topCard({ services, conversationKey })
      : await personCard({
          services,
          conversationKey,
          userId: input.user ?? user.id,
          // Someone else's roles are unknown here, so their role budgets are not shown.
          roleIds: input.user === undefined || input.user === user.id ? user.roleIds : [],
          isSelf: !isAboutOthers,
        });
    await responder.send({ card, isPrivate: true });
  },
});

export async function personCard({
  services,
  conversationKey,
  userId,
  roleIds,
  isSelf,
}: {
  services: CommandServices;
  conversationKey: string;
  userId: string;
  roleIds: readonly string[];
  isSelf: boolean;
}): Promise<Card> {
  const [report, standings] = await Promise.all([
    services.usage.report({ userId, conversationKey, at: services.now() }),
    services.spending.standings({ userId, roleIds, conversationKey }),
  ]);
  const who = isSelf ? 'You' : userId;
  const fields: CardField[] = [
    { name: `${who}, today`, value: describe(report.user.today) },
    { name: `${who}, this month`, value: describe(report.user.month) },
    { name: 'This conversation, today', value: describe(report.conversation.today) },
    { name: 'This conversation, this month', value: describe(report.conversation.month) },
    {
      name: 'Budgets here',
      value:
        standings.length === 0
          ? 'No budget applies here.'
          : standings
              .map((standing) => `• ${standing.description}: ${standing.left}; ${standing.reset}`)
              .join('\n'),
    },
  ];
  return {
    title: isSelf ? 'Your usage' : `Usage of ${userId}`,
    fields,
    footer: `Costs in the gateway's units, from the prices parley knows; days and months in ${services.budgetTimeZone}.`,
  };
}

export async function topCard({
  services,
  conversationKey,
}: {
  services: CommandServices;
  conversationKey: string;
}): Promise<Card> {
  const place = placeOfConversation(conversationKey);
  const at = services.now();
  const periods = [
    { period: 'day', label: 'today' },
    { period: 'month', label: 'this month' },
  ] as const;
  const fields = await Promise.all(
    periods.flatMap(({ period, label }) =>
      (['users', 'channels'] as const).map(async (kind) => {
        const ranked = await services.usage.top({ ...place, kind, period, at, count: 5 });
        return {
          name: `Top ${kind === 'users' ? 'people' : 'channels'}, ${label}`,
          value:
            ranked.length === 0
              ? 'nobody yet'
              : ranked
                  .map((entry, index) => `${index + 1}. \`${entry.id}\` ${formatCost(entry.costNanos)}`)
                  .join('\n'),
          isInline: true,
        };
      }),
    ),
  );
  const ratings = await services.feedback.totals(place);
  const rated = Object.entries(ratings).filter(([, counts]) => counts.positive + counts.negative > 0);
  return {
    title: 'Top spending here',
    fields: [
      ...fields,
      {
        name: 'Ratings of replies (👍/👎), by model',
        value:
          rated.length === 0
            ? 'none yet'
            : rated
                .map(([model, counts]) => `\`${model}\` 👍 ${counts.positive} · 👎 ${counts.negative}`)
                .join('\n'),
      },
    ],
    footer: `By cost, in the gateway's units; days and months in ${services.budgetTimeZone}.`,
  };
}
