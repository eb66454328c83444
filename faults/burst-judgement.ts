import type { StoredTurn } from '../src/conversation/turn.ts';
import type { Check, ScenarioObservation, TurnOutcome } from './scenario.ts';
import { describeHistory } from './store-observations.ts';
import { judgeTurn, type ShownReply } from './turn-judgement.ts';
import type { TurnMarker } from './turn-markers.ts';

/** One bot message of a conversation as the platform lists it (in its own order), reduced to its text. */
export interface BotMessageText {
  readonly text: string;
  /** Whether it still carries Stop or an open stream. */
  readonly isOpen: boolean;
  readonly buttons: readonly string[];
}

/** The turn number a reply's head names (`R17:` → 17), or undefined for a message of no turn. */
function turnNumberOf(text: string): number | undefined {
  const match = /\bR(\d+):/.exec(text);
  return match === null ? undefined : Number(match[1]);
}

function turnNumberOfMarker(marker: TurnMarker): number {
  return Number(/R(\d+):/.exec(marker.head)?.[1]);
}

/** Whether every marker's whole reply is shown and nothing is still open: the burst is done. */
export function isBurstAnswered(
  markers: readonly TurnMarker[],
  messages: readonly BotMessageText[],
): boolean {
  if (messages.some((message) => message.isOpen)) return false;
  const shown = messages.map((message) => message.text).join('\n');
  return markers.every((marker) => shown.includes(marker.replyText));
}

/** The longest run of a sequence that is out of order, for the report: `13 14 … 20 1 2 … 12`. */
function describeSequence(numbers: readonly number[], first: number): string {
  const relative = numbers.map((number) => number - first + 1);
  if (relative.length <= 12) return relative.join(' ');
  return `${relative.slice(0, 6).join(' ')} … ${relative.slice(-4).join(' ')}`;
}

function isIncreasing(numbers: readonly number[]): boolean {
  return numbers.every((number, index) => index === 0 || number > (numbers[index - 1] ?? 0));
}

/**
 * Judges a burst of turns in one conversation: each is answered (or told) once, the replies appear in
 * the order the messages were sent, and history holds the exchanges in that order too.
 */
export function judgeBurst({
  markers,
  messages,
  history,
  isSettled,
  prefix,
}: {
  /** In the order the messages were sent. */
  markers: readonly TurnMarker[];
  /** The bot's messages in the conversation, in the platform's order. */
  messages: readonly BotMessageText[];
  history: readonly StoredTurn[] | undefined;
  isSettled: boolean;
  /** What the observed column starts with (the burst and where). */
  prefix: string;
}): ScenarioObservation {
  const first = turnNumberOfMarker(markers[0] as TurnMarker);
  const turns: TurnOutcome[] = markers.map((marker) => {
    const own = messages.filter((message) => message.text.includes(marker.head));
    const shown: ShownReply = {
      text: own.map((message) => message.text).join('\n'),
      messageCount: own.length,
      buttons: own.flatMap((message) => message.buttons),
      revisions: own.map((message) => message.text),
      isSettled: isSettled && !own.some((message) => message.isOpen),
      firstTextAtMs: undefined,
      firstWarningAtMs: undefined,
    };
    return judgeTurn({ marker, shown, history });
  });
  const duplicates = markers.reduce(
    (sum, marker) =>
      sum + Math.max(0, messages.filter((message) => message.text.includes(marker.head)).length - 1),
    0,
  );
  const shownOrder = messages
    .map((message) => turnNumberOf(message.text))
    .filter((number): number is number => number !== undefined);
  const recordedOrder = (history ?? [])
    .filter((turn) => turn.role === 'user')
    .map((turn) => Number(/\[t(\d+)/.exec(turn.text)?.[1]))
    .filter((number) => !Number.isNaN(number));
  const answered = turns.filter((turn) => turn.fate === 'answered').length;
  const lost = turns.filter((turn) => turn.fate === 'lost').length;
  const checks: Check[] = [
    { name: 'every message answered once', isMet: answered === markers.length && duplicates === 0 },
    { name: 'replies shown in the order the messages were sent', isMet: isIncreasing(shownOrder) },
    {
      name: 'history holds the exchanges in the order the messages were sent',
      isMet: isIncreasing(recordedOrder) && recordedOrder.length === markers.length,
    },
  ];
  return {
    checks,
    observed: `${prefix} · answered ${answered} of ${markers.length}${lost > 0 ? `, ${lost} lost` : ''} · shown in order ${describeSequence(shownOrder, first)} · recorded in order ${describeSequence(recordedOrder, first)} · ${describeHistory(history)}`,
    turns,
    duplicateReplies: duplicates,
  };
}
