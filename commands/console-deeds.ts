import type { ConsoleDeeds } from '../src/console/console-deeds.ts';
import { conversationKeyOf, placeOfConversation } from '../src/conversation/turn.ts';
import { formatCost } from '../src/spending/prices.ts';
import { applyConfigChange } from './config-changes.ts';
import { toCsv } from './csv.ts';
import type { CommandServices } from './define-command.ts';
import { personCard, topCard } from './definitions/usage.ts';

/**
 * The console's deeds on the commands' own code: the person built by their platform now (as a
 * scheduled run builds its owner), `/config`'s change, `/usage`'s cards, and its figures as CSV
 * through the CSV writer `/extract` uses.
 */
export function createConsoleDeeds(services: CommandServices): ConsoleDeeds {
  return {
    async actorNow({ platform, workspace, userId }) {
      const places = services.scheduling?.places.of(platform);
      if (places === undefined) return undefined;
      const now = await places.actorNow({
        userId,
        // The server as a whole: no channel to be judged in, and nothing is posted.
        conversationKey: conversationKeyOf({ platform, workspace, channel: '' }),
        postsThere: false,
        atMs: services.now().getTime(),
      });
      return now.isPresent ? now.actor : undefined;
    },
    changeSetting: ({ actor, conversationKey, name, scope, text }) =>
      applyConfigChange({ services, user: actor, conversationKey, change: { name, scope, text } }),
    usageCard: ({ actor, conversationKey }) =>
      personCard({ services, conversationKey, userId: actor.id, roleIds: actor.roleIds, isSelf: true }),
    topSpendCard: ({ conversationKey }) => topCard({ services, conversationKey }),
    async topSpendCsv({ conversationKey }) {
      const place = placeOfConversation(conversationKey);
      const at = services.now();
      const rows: string[][] = [['period', 'kind', 'rank', 'id', 'cost']];
      for (const period of ['day', 'month'] as const) {
        for (const kind of ['users', 'channels'] as const) {
          const ranked = await services.usage.top({ ...place, kind, period, at, count: 25 });
          ranked.forEach((entry, index) => {
            rows.push([period, kind, String(index + 1), entry.id, formatCost(entry.costNanos)]);
          });
        }
      }
      return toCsv(rows);
    },
  };
}
