import type { Keyv } from 'keyv';
import { z } from 'zod';
import { recordReplyFeedback } from '../operations/metrics.ts';
import type { ConversationKey } from './turn.ts';

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
  /** A person's rating of a reply, if they gave one. */
  find(options: {
    conversationKey: ConversationKey;
    replyCreatedAt: string;
    userId: string;
  }): Promise<StoredFeedback | undefined>;
}

export function createReplyFeedbackStore({ store }: { store: Keyv }): ReplyFeedbackStore {
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
      const stored: StoredFeedback = { rating, model, platform, ratedAt: at.toISOString() };
      await store.set(keyOf(place), stored);
      recordReplyFeedback({ platform, model, rating });
    },
    async find(place) {
      const parsed = storedFeedbackSchema.safeParse(await store.get(keyOf(place)));
      return parsed.success ? parsed.data : undefined;
    },
  };
}
