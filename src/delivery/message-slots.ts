import type { Action } from './card.ts';
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
  /** The buttons the message should show: Stop under the newest while streaming, the follow-ups at the end. */
  desiredActions: readonly Action[];
  /** The buttons the platform last accepted for the message. */
  shownActions: readonly Action[];
  /** A final call of the message failed for good: it is left as it shows, buttons included. */
  isGivenUp?: boolean;
  /**
   * The message is a reply's early part: what it had when edits were scarce, posted with its final
   * text at once (see `Surface.earlyPartDelayMs`); the reply goes on in the next message.
   */
  isEarlyPart?: boolean;
  /** When the message last showed fresh text (posted or edited): the stalest edit goes first. */
  shownAtMs: number;
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
    desiredActions: [],
    shownActions: [],
    shownAtMs: Number.NEGATIVE_INFINITY,
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
    if (slot.message !== null && (slot.desiredText !== slot.deliveredText || !hasActionsShown(slot))) {
      candidates.push({ kind: 'edit', slot, dueAtMs: slot.nextCallAtMs, rank: slot.isSettled ? 1 : 2 });
    }
  }
  const goesBefore = (left: PlannedCall, right: PlannedCall): boolean => {
    const isLeftDue = left.dueAtMs <= nowMs;
    const isRightDue = right.dueAtMs <= nowMs;
    if (isLeftDue !== isRightDue) return isLeftDue;
    if (isLeftDue && left.rank !== right.rank) return left.rank < right.rank;
    // Final texts due at once go in message order: a reply's messages reach them in turn.
    if (isLeftDue && left.rank === 1) return false;
    return left.dueAtMs < right.dueAtMs;
  };
  return candidates.reduce<PlannedCall | null>(
    (best, candidate) => (best === null || goesBefore(candidate, best) ? candidate : best),
    null,
  );
}

/** Whether the message shows the buttons it should. */
export function hasActionsShown(slot: MessageSlot): boolean {
  return sameActions(slot.desiredActions, slot.shownActions);
}

export function sameActions(left: readonly Action[], right: readonly Action[]): boolean {
  return left.length === right.length && left.every((action, index) => action.id === right[index]?.id);
}

function isBlank(text: string): boolean {
  return !/\S/.test(text);
}
