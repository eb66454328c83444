import type { Keyv } from 'keyv';
import { z } from 'zod';
import { recordReplyFeedback } from '../operations/metrics.ts';
import { type ConversationKey, placeOfConversation } from './turn.ts';

export const feedbackRatingSchema = z.enum(['positive', 'negative']);
export type FeedbackRating = z.infer<typeof feedbackRatingSchema>;

const storedFeedbackSchema = z.object({
  rating: feedbackRatingSchema,
  /** The model that wrote the rated reply. */
  model: z.string(),
  platform: z.string(),
  ratedAt: z.iso.datetime(),
});

/** One person's rating of one reply, as kept. */
export type StoredFeedback = z.infer<typeof storedFeedbackSchema>;

/**
 * Ratings of finished replies (👍/👎), kept beside the turn they rate: one per person and reply, the
 * latest click wins. Every rating is also counted in /metrics (`parley_reply_feedback_total`).
 */
export interface ReplyFeedbackStore {
  record(feedback: {
    conversationKey: ConversationKey;
    /** `createdAt` of the rated assistant turn in history. */
    replyCreatedAt: string;
    userId: string;
    rating: FeedbackRating;
    model: string;
    platform: string;
    at: Date;
  }): Promise<void>;
  /**
   * The ratings of a workspace (or server) by the model that wrote the rated replies: each person's
   * latest rating of each reply counts once.
   */
  totals(options: { platform: string; workspace: string }): Promise<FeedbackTotals>;
  /** A person's rating of a reply, if they gave one. */
  find(options: {
    conversationKey: ConversationKey;
    replyCreatedAt: string;
    userId: string;
  }): Promise<StoredFeedback | undefined>;
}

const feedbackTotalsSchema = z.record(z.string(), z.object({ positive: z.number(), negative: z.number() }));

/** Ratings by model: how many 👍 and 👎. */
export type FeedbackTotals = z.infer<typeof feedbackTotalsSchema>;

/**
 * Keeps ratings in a keyv store. The totals are a read-modify-write of one record per workspace: two
 * clicks at the same instant in two processes may lose one count there (the metric counts every click).
 */
export function createReplyFeedbackStore({ store }: { store: Keyv }): ReplyFeedbackStore {
  const totalsKeyOf = ({ platform, workspace }: { platform: string; workspace: string }) =>
    `totals|${platform}:${workspace}`;
  const readTotals = async (key: string): Promise<FeedbackTotals> => {
    const parsed = feedbackTotalsSchema.safeParse(await store.get(key));
    return parsed.success ? parsed.data : {};
  };
  const keyOf = ({
    conversationKey,
    replyCreatedAt,
    userId,
  }: {
    conversationKey: string;
    replyCreatedAt: string;
    userId: string;
  }) => `${conversationKey}|${replyCreatedAt}|${userId}`;
  return {
    async record({ rating, model, platform, at, ...place }) {
      const previous = storedFeedbackSchema.safeParse(await store.get(keyOf(place)));
      const stored: StoredFeedback = { rating, model, platform, ratedAt: at.toISOString() };
      await store.set(keyOf(place), stored);
      recordReplyFeedback({ platform, model, rating });
      // A changed mind moves the person's one count; the same click again changes nothing.
      if (previous.success && previous.data.rating === rating) return;
      const totalsKey = totalsKeyOf({
        platform,
        workspace: placeOfConversation(place.conversationKey).workspace,
      });
      const totals = await readTotals(totalsKey);
      const countsOf = (name: string) => {
        totals[name] ??= { positive: 0, negative: 0 };
        return totals[name];
      };
      countsOf(model)[rating] += 1;
      if (previous.success) {
        const before = countsOf(previous.data.model);
        before[previous.data.rating] = Math.max(0, before[previous.data.rating] - 1);
      }
      await store.set(totalsKey, totals);
    },
    totals: (place) => readTotals(totalsKeyOf(place)),
    async find(place) {
      const parsed = storedFeedbackSchema.safeParse(await store.get(keyOf(place)));
      return parsed.success ? parsed.data : undefined;
    },
  };
}
