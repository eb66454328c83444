import { splitMessage } from './split-message.ts';

/** Shown under a reply the model stopped because it reached its output token limit. */
export const lengthLimitNote = '⚠ the reply hit the length limit and stops here';

/** Shown instead of a reply that had no visible text and no notes, so the person sees an answer. */
export const noReplyText = '_(no reply)_';

/** Heads a new message carrying the end of a reply whose last edit could not land. */
export const carriedRestNote = '⚠ I could not finish the message above, so the rest of the reply is here.';

/** Heads a new message repeating a reply whose message could not be brought up to date. */
export const carriedWholeNote = '⚠ I could not finish the message above, so here is the whole reply.';

/** The note under a reply that broke off; `reason` is a short user-facing message. */
export function cutOffNote(reason: string): string {
  return `⚠ reply cut off: ${reason}`;
}

/**
 * The line shown when a reply failed before any text: nothing was cut off, so it says only what
 * happened ("⚠ The model service balance is used up…").
 */
export function failureNote(reason: string): string {
  return `⚠ ${reason}`;
}

/**
 * Formats notes as italic lines, one a note. Newlines inside a note are folded into spaces because
 * an italic span ends at a line break; `_` is italic on both Discord and Slack, `*` is bold on Slack.
 */
export function formatNotes(notes: readonly string[]): string {
  return notes
    .map((note) => note.replace(/\s+/g, ' ').trim())
    .filter((note) => note !== '')
    .map((note) => `_${note}_`)
    .join('\n');
}

export interface AppendNotesOptions {
  /** The final texts of the reply's messages, in order; empty when the reply had no visible text. */
  readonly messageTexts: readonly string[];
  readonly notes: readonly string[];
  readonly maxLength: number;
}

/**
 * Adds the notes below the last message, after a blank line, or as new messages when they would
 * push the last one over the limit. Returns the message texts with the notes in place.
 */
export function appendNotes({ messageTexts, notes, maxLength }: AppendNotesOptions): string[] {
  const notesText = formatNotes(notes);
  if (notesText === '') return [...messageTexts];
  const lastText = messageTexts.at(-1);
  if (lastText !== undefined) {
    const withNotes = lastText + separatorAfter(lastText) + notesText;
    if (withNotes.length <= maxLength) return [...messageTexts.slice(0, -1), withNotes];
  }
  const notePieces = splitMessage({ text: notesText, maxLength }).map((piece) => piece.text);
  return [...messageTexts, ...notePieces];
}

/** A blank line before the notes, counting the line breaks the text already ends with. */
function separatorAfter(text: string): string {
  if (text.endsWith('\n\n')) return '';
  return text.endsWith('\n') ? '\n' : '\n\n';
}
