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
 * Values waiting for their modal's submission (the message a person asks about, a form's context), by a token in the modal's custom_id. The
 * message command carries the message itself (`resolved.messages`), which a user-installed app
 * could not read again from the channel; an unanswered modal is forgotten after the interaction
 * token's 15 minutes.
 */
export interface PendingValues<Value> {
  /** Keeps the value and returns the token to put in the modal's custom_id. */
  hold(value: Value): string;
  /** The value of a submitted modal, once. */
  take(token: string): Value | undefined;
}

export type PendingQuestions = PendingValues<QuestionTarget>;

/** A form a command opened: which command handles it, and the context it gave. */
export interface PendingForm {
  readonly commandName: string;
  readonly context: string;
}

const keptForMs = 15 * 60 * 1000;

export function createPendingValues<Value>({
  now = () => Date.now(),
}: {
  now?: () => number;
} = {}): PendingValues<Value> {
  const pending = new Map<string, { value: Value; expiresAtMs: number }>();
  const forgetExpired = () => {
    for (const [token, entry] of pending) if (entry.expiresAtMs <= now()) pending.delete(token);
  };
  return {
    hold(value) {
      forgetExpired();
      const token = randomBytes(12).toString('base64url');
      pending.set(token, { value, expiresAtMs: now() + keptForMs });
      return token;
    },
    take(token) {
      forgetExpired();
      const entry = pending.get(token);
      pending.delete(token);
      return entry?.value;
    },
  };
}
