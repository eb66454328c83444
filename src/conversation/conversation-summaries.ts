import type Keyv from 'keyv';
import { z } from 'zod';
import type { ConversationKey } from './turn.ts';

const summarySchema = z.object({
  /** The running summary, in the conversation's language. */
  text: z.string(),
  /** `createdAt` of the newest turn folded in: that turn and every older one are in the summary. */
  coversThrough: z.iso.datetime(),
  /** How many turns it holds, for the log and /usage-like reports. */
  foldedTurnCount: z.number().int().min(0),
  /**
   * The people whose turns were folded in (id, and the name the transcript gave them), so /forget
   * knows whether a summary retells someone. Absent on summaries written before it was recorded:
   * those are taken to be by several people.
   */
  authors: z.array(z.object({ id: z.string(), name: z.string() })).optional(),
});

/** Someone whose words a summary retells. */
export type SummaryAuthor = NonNullable<ConversationSummary['authors']>[number];

/** What a conversation's older turns came to, once they no longer fit the context. */
export type ConversationSummary = z.infer<typeof summarySchema>;

/**
 * The rolling summary of each conversation: one record per conversation, replaced whenever more
 * turns are folded into it, gone with /reset.
 */
export interface ConversationSummaries {
  get(key: ConversationKey): Promise<ConversationSummary | undefined>;
  set(key: ConversationKey, summary: ConversationSummary): Promise<void>;
  reset(key: ConversationKey): Promise<void>;
}

export function createConversationSummaries({ store }: { store: Keyv }): ConversationSummaries {
  return {
    async get(key) {
      const parsed = summarySchema.safeParse(await store.get(key));
      return parsed.success ? parsed.data : undefined;
    },
    async set(key, summary) {
      await store.set(key, summary);
    },
    async reset(key) {
      await store.delete(key);
    },
  };
}
