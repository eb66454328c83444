import type { PostedMessage } from './surface.ts';

/** One platform message of a streaming reply: what it shows and what it should show. */
export interface MessageSlot {
  message: PostedMessage | null;
  /** The text the message should show next. */
  desiredText: string;
  /** The text the platform last accepted for the message; null until it is posted. */
  deliveredText: string | null;
  /** The newest text sent to the platform, accepted or still in flight; null until the first call. */
  sentText: string | null;
  /** Whether `desiredText` is final: the message will not change again. */
  isSettled: boolean;
  /** The earliest time the next call for this message may start, from its edit budget or a retry. */
  nextCallAtMs: number;
}

/** A platform call the writer may make next. */
export interface PlannedCall {
  readonly kind: 'post' | 'edit';
  readonly slot: MessageSlot;
  readonly dueAtMs: number;
  /** Lower goes first when several calls are due: first visible text, final text, then the rest. */
  readonly rank: number;
}

/** The last slot if it can still change, else a new empty slot appended for the next message. */
export function openSlot(slots: MessageSlot[]): MessageSlot {
  const last = slots.at(-1);
  if (last !== undefined && !last.isSettled) return last;
  const slot: MessageSlot = {
    message: null,
    desiredText: '',
    deliveredText: null,
    sentText: null,
    isSettled: false,
    nextCallAtMs: Number.NEGATIVE_INFINITY,
  };
  slots.push(slot);
  return slot;
}

/**
 * Picks the call to make next: among the calls due now the best-ranked, the longest-waiting first
 * within a rank; when none is due, the one due soonest. Null when every message is up to date.
 */
export function planNextCall(slots: readonly MessageSlot[], nowMs: number): PlannedCall | null {
  const candidates: PlannedCall[] = [];
  // Messages must appear in order, so only the first unposted one may be posted, and only once it
  // has something to show: a platform rejects or hides a blank message. A settled blank piece (a
  // run of whitespace longer than a message) will never have anything to show, so it is skipped.
  const unposted = slots.find(
    (slot) => slot.message === null && !(slot.isSettled && isBlank(slot.desiredText)),
  );
  if (unposted !== undefined && !isBlank(unposted.desiredText)) {
    candidates.push({ kind: 'post', slot: unposted, dueAtMs: unposted.nextCallAtMs, rank: 0 });
  }
  for (const slot of slots) {
    if (slot.message !== null && slot.desiredText !== slot.deliveredText) {
      candidates.push({ kind: 'edit', slot, dueAtMs: slot.nextCallAtMs, rank: slot.isSettled ? 1 : 2 });
    }
  }
  const goesBefore = (left: PlannedCall, right: PlannedCall): boolean => {
    const isLeftDue = left.dueAtMs <= nowMs;
    const isRightDue = right.dueAtMs <= nowMs;
    if (isLeftDue !== isRightDue) return isLeftDue;
    if (isLeftDue && left.rank !== right.rank) return left.rank < right.rank;
    return left.dueAtMs < right.dueAtMs;
  };
  return candidates.reduce<PlannedCall | null>(
    (best, candidate) => (best === null || goesBefore(candidate, best) ? candidate : best),
    null,
  );
}

function isBlank(text: string): boolean {
  return !/\S/.test(text);
}
