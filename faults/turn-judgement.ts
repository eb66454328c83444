import type { StoredTurn } from '../src/conversation/turn.ts';
import type { TurnOutcome } from './scenario.ts';
import type { TurnMarker } from './turn-markers.ts';

/** What a platform shows after one question, whichever platform it is. */
export interface ShownReply {
  /** The bot's messages joined, oldest first. */
  readonly text: string;
  readonly messageCount: number;
  /** Labels of the buttons under them. */
  readonly buttons: readonly string[];
  /** Every version the messages went through, for "was X ever shown". */
  readonly revisions: readonly string[];
  /** Whether it stopped changing, without a Stop button, within the wait. */
  readonly isSettled: boolean;
  /** When the first text was shown, and the first warning (⚠), in epoch milliseconds. */
  readonly firstTextAtMs: number | undefined;
  readonly firstWarningAtMs: number | undefined;
}

/** What parley writes under a reply whose exchange it could not save (src/conversation/engine.ts). */
const notSavedPattern = /could not save this exchange/;
/** Every message parley writes about a problem starts with this sign. */
const warningPattern = /⚠/;

/**
 * Decides what became of one thing a person asked, from what the platform shows and what history
 * holds: `answered` when the whole reply is shown and recorded; `told` when a warning says what went
 * wrong and history holds nothing that contradicts it; `lost` otherwise.
 */
export function judgeTurn({
  marker,
  shown,
  history,
  toldPattern = warningPattern,
}: {
  marker: TurnMarker;
  shown: ShownReply;
  /** The conversation's history after the turn, or `undefined` when it could not be read. */
  history: readonly StoredTurn[] | undefined;
  /** What counts as telling the person, when not the usual warning sign. */
  toldPattern?: RegExp;
}): TurnOutcome {
  if (shown.messageCount === 0) return { fate: 'lost', detail: 'no reply at all' };
  const recorded = recordedExchange(history, marker);
  const isWholeReplyShown = shown.text.includes(marker.replyText);
  // A stale Stop button under a whole, recorded reply fails its scenario's checks, but the turn is not lost.
  if (!isWholeReplyShown && (!shown.isSettled || shown.buttons.includes('Stop'))) {
    return { fate: 'lost', detail: `reply left unfinished: "${quote({ text: shown.text })}"` };
  }
  if (isWholeReplyShown) {
    if (recorded.assistant?.text === marker.replyText && recorded.user !== undefined) {
      return { fate: 'answered', detail: 'whole reply shown and in history' };
    }
    if (notSavedPattern.test(shown.text))
      return { fate: 'told', detail: 'reply shown, "could not save" said' };
    return { fate: 'lost', detail: 'reply shown but missing from history, and nobody was told' };
  }
  if (!toldPattern.test(shown.text)) {
    return { fate: 'lost', detail: `neither the reply nor a warning: "${quote({ text: shown.text })}"` };
  }
  if (recorded.assistant !== undefined && recorded.assistant.isInterrupted !== true) {
    return { fate: 'lost', detail: 'a warning was shown, but history holds the reply as if complete' };
  }
  return { fate: 'told', detail: `"${quote({ text: shown.text })}"` };
}

function recordedExchange(
  history: readonly StoredTurn[] | undefined,
  marker: TurnMarker,
): { user: StoredTurn | undefined; assistant: StoredTurn | undefined } {
  const turns = history ?? [];
  const userIndex = turns.findIndex((turn) => turn.role === 'user' && turn.text.includes(marker.marker));
  const next = userIndex === -1 ? undefined : turns[userIndex + 1];
  return {
    user: userIndex === -1 ? undefined : turns[userIndex],
    assistant: next?.role === 'assistant' ? next : undefined,
  };
}

/** How many times a reply was shown beyond once. */
export function duplicatesOf({
  shownTexts,
  marker,
}: {
  shownTexts: readonly string[];
  marker: TurnMarker;
}): number {
  const count = shownTexts.filter((text) => text.includes(marker.head)).length;
  return Math.max(0, count - 1);
}

/** A short quote of what a person saw, one line, for the table. */
export function quote({ text, maxLength = 90 }: { text: string; maxLength?: number }): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length <= maxLength ? oneLine : `${oneLine.slice(0, maxLength - 1)}…`;
}
