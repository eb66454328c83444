import type { Keyv } from 'keyv';
import { z } from 'zod';
import type { TokenUsage } from '../gateway/chat-types.ts';
import type { Logger } from '../log.ts';
import type { KeyedLock } from '../state/keyed-lock.ts';
import type { ConversationKey } from './turn.ts';

const usageTotalsSchema = z.object({
  requests: z.number(),
  promptTokens: z.number(),
  completionTokens: z.number(),
  totalTokens: z.number(),
  images: z.number(),
});

/** What was spent in one period: gateway requests, tokens from `usage`, and images generated. */
export type UsageTotals = z.infer<typeof usageTotalsSchema>;

export interface UsageReport {
  readonly user: { readonly today: UsageTotals; readonly month: UsageTotals };
  readonly conversation: { readonly today: UsageTotals; readonly month: UsageTotals };
}

export interface UsageEntry {
  readonly userId: string;
  readonly conversationKey: ConversationKey;
  readonly usage?: TokenUsage | undefined;
  readonly images?: number;
  readonly at: Date;
}

/** Spending per person and per conversation, by UTC day and month, as the gateway reported it. */
export interface UsageLedger {
  /**
   * Counts one gateway request. Never rejects: a store failure is logged, because the reply it
   * counts was already delivered and must not fail for its bookkeeping.
   */
  record(entry: UsageEntry): Promise<void>;
  report(query: { userId: string; conversationKey: ConversationKey; at: Date }): Promise<UsageReport>;
}

const emptyTotals: UsageTotals = {
  requests: 0,
  promptTokens: 0,
  completionTokens: 0,
  totalTokens: 0,
  images: 0,
};
const dayTtlMs = 40 * 24 * 60 * 60 * 1000;
const monthTtlMs = 400 * 24 * 60 * 60 * 1000;

function periodKeys({ scope, at }: { scope: string; at: Date }): { day: string; month: string } {
  const day = at.toISOString().slice(0, 10);
  return { day: `${scope}:day:${day}`, month: `${scope}:month:${day.slice(0, 7)}` };
}

export function createUsageLedger({
  store,
  lock,
  logger,
}: {
  store: Keyv;
  lock: KeyedLock;
  logger: Logger;
}): UsageLedger {
  const read = async (key: string): Promise<UsageTotals> => {
    const parsed = usageTotalsSchema.safeParse(await store.get(key));
    return parsed.success ? parsed.data : { ...emptyTotals };
  };
  // Read-add-write under a per-key lock so two replies finishing together both count.
  const add = (key: string, ttlMs: number, entry: UsageEntry) =>
    lock.run(key, async () => {
      const totals = await read(key);
      await store.set(
        key,
        {
          requests: totals.requests + 1,
          promptTokens: totals.promptTokens + (entry.usage?.promptTokens ?? 0),
          completionTokens: totals.completionTokens + (entry.usage?.completionTokens ?? 0),
          totalTokens: totals.totalTokens + (entry.usage?.totalTokens ?? 0),
          images: totals.images + (entry.images ?? 0),
        },
        ttlMs,
      );
    });
  return {
    async record(entry) {
      const scopes = [`user:${entry.userId}`, `conversation:${entry.conversationKey}`];
      await Promise.all(
        scopes.flatMap((scope) => {
          const keys = periodKeys({ scope, at: entry.at });
          return [add(keys.day, dayTtlMs, entry), add(keys.month, monthTtlMs, entry)];
        }),
      ).catch((error: unknown) => logger.warn({ err: error, userId: entry.userId }, 'usage not recorded'));
    },
    async report({ userId, conversationKey, at }) {
      const userKeys = periodKeys({ scope: `user:${userId}`, at });
      const conversationKeys = periodKeys({ scope: `conversation:${conversationKey}`, at });
      const [userToday, userMonth, conversationToday, conversationMonth] = await Promise.all([
        read(userKeys.day),
        read(userKeys.month),
        read(conversationKeys.day),
        read(conversationKeys.month),
      ]);
      return {
        user: { today: userToday, month: userMonth },
        conversation: { today: conversationToday, month: conversationMonth },
      };
    },
  };
}
