import { randomBytes } from 'node:crypto';
import type { DocumentAttachment, ImageAttachment } from '../../src/conversation/turn.ts';

/** The message a person asked about, as the message command delivered it (the modal submit does not carry it). */
export interface QuestionTarget {
  readonly channelId: string;
  readonly messageId: string;
  readonly authorName: string;
  readonly text: string;
  readonly images: readonly ImageAttachment[];
  readonly documents: readonly DocumentAttachment[];
}

/**
 * Messages waiting for the question their modal asks, by a token in the modal's custom_id. The
 * message command carries the message itself (`resolved.messages`), which a user-installed app
 * could not read again from the channel; an unanswered modal is forgotten after the interaction
 * token's 15 minutes.
 */
export interface PendingQuestions {
  /** Keeps the target and returns the token to put in the modal's custom_id. */
  hold(target: QuestionTarget): string;
  /** The target of a submitted modal, once. */
  take(token: string): QuestionTarget | undefined;
}

const keptForMs = 15 * 60 * 1000;

export function createPendingQuestions({
  now = () => Date.now(),
}: {
  now?: () => number;
} = {}): PendingQuestions {
  const pending = new Map<string, { target: QuestionTarget; expiresAtMs: number }>();
  const forgetExpired = () => {
    for (const [token, entry] of pending) if (entry.expiresAtMs <= now()) pending.delete(token);
  };
  return {
    hold(target) {
      forgetExpired();
      const token = randomBytes(12).toString('base64url');
      pending.set(token, { target, expiresAtMs: now() + keptForMs });
      return token;
    },
    take(token) {
      forgetExpired();
      const entry = pending.get(token);
      pending.delete(token);
      return entry?.target;
    },
  };
}
