import { type FenceRegion, findFenceAt, findFenceRegions, startsFenceMarker } from './markdown-fences.ts';

/** One message's worth of a longer Markdown text. */
export interface MessagePiece {
  /** What the message shows: `reopeningFence + body + closingFence`, never longer than the limit. */
  readonly text: string;
  /** The slice of the source text this piece carries; the bodies of all pieces concatenate to it. */
  readonly body: string;
  /** Index in the source text where `body` starts. */
  readonly sourceStart: number;
  /** Index in the source text just after `body`. */
  readonly sourceEnd: number;
  /** Added in front to reopen the code block the previous piece closed, e.g. "```ts\n"; else empty. */
  readonly reopeningFence: string;
  /** Added at the end to close a code block still open there, e.g. "\n```"; else empty. */
  readonly closingFence: string;
}

export interface SplitMessageOptions {
  /** Markdown text; only the part from `startIndex` on is split. */
  readonly text: string;
  /** The most characters (UTF-16 code units) one piece may hold, fence additions included. */
  readonly maxLength: number;
  /** Where to start in `text`; the text before it is read only to know which code block is open. */
  readonly startIndex?: number;
}

/** Pieces of a text that is still growing, see {@link splitGrowingText}. */
export interface GrowingTextPieces {
  /** Pieces that stay as they are however much text is appended: they can be finalised now. */
  readonly settledPieces: MessagePiece[];
  /**
   * The first piece not settled yet: the text a message would show now. It may end before the text
   * does, for the moment a cut is pending. Null when there is no text from the start index.
   */
  readonly growingPiece: MessagePiece | null;
}

/** The smallest limit accepted: below it a reopened and reclosed code block leaves no room for text. */
export const minimumMaxLength = 20;

interface Layout {
  readonly text: string;
  readonly maxLength: number;
  readonly regions: readonly FenceRegion[];
  /** Index of the last non-whitespace character, -1 when there is none. */
  readonly lastVisibleIndex: number;
}

/** Where the break candidates in one window are, by kind; -1 when a kind has none. */
interface Breaks {
  paragraphEnd: number;
  lineEnd: number;
  anyEnd: number;
  /** A break right after a block opens or right before it closes: valid, but leaves an empty block. */
  awkwardEnd: number;
}

/**
 * Splits Markdown text into pieces that each fit `maxLength`. A cut prefers a paragraph break, then
 * a line break, then a space, and splits a word only when a single word is longer than the limit.
 * A cut inside a code block closes the block at the end of the piece and reopens it, with the same
 * language, at the start of the next; an unclosed block at the very end is closed too, so every piece
 * renders on its own. Whitespace at a cut stays at the end of the earlier piece.
 */
export function splitMessage({ text, maxLength, startIndex = 0 }: SplitMessageOptions): MessagePiece[] {
  if (!Number.isInteger(maxLength) || maxLength < minimumMaxLength) {
    throw new RangeError(`maxLength must be an integer of at least ${minimumMaxLength}, got ${maxLength}`);
  }
  const layout: Layout = {
    text,
    maxLength,
    regions: findFenceRegions(text),
    lastVisibleIndex: findLastVisibleIndex(text),
  };
  const pieces: MessagePiece[] = [];
  let start = startIndex;
  while (start < text.length) {
    const reopeningFence = reopeningFenceAt(layout, start);
    const restLength =
      reopeningFence.length + text.length - start + closingFenceAt(layout, text.length).length;
    const end = restLength <= maxLength ? text.length : chooseCut(layout, start, reopeningFence.length);
    pieces.push(makePiece(layout, start, end, reopeningFence));
    start = end;
  }
  return pieces;
}

/**
 * Splits text that a stream is still appending to. A piece is settled once no later text can move
 * its cut, so a writer can give it to a message for good and continue in a new message, passing the
 * last settled piece's `sourceEnd` as the next `startIndex`. Settled pieces followed by a final
 * `splitMessage` from there give exactly what `splitMessage` gives for the whole text at once.
 */
export function splitGrowingText(options: SplitMessageOptions): GrowingTextPieces {
  const pieces = splitMessage(options);
  const settledPieces: MessagePiece[] = [];
  for (const piece of pieces.slice(0, -1)) {
    if (!isCutSettled(options.text, options.maxLength, piece)) break;
    settledPieces.push(piece);
  }
  return { settledPieces, growingPiece: pieces[settledPieces.length] ?? null };
}

/** How many characters past a break the fence check reads (the rest of a "```" marker). */
const fenceMarkerLookahead = 2;

/** Whether text appended later can no longer move the cut at the end of this piece. */
function isCutSettled(text: string, maxLength: number, piece: MessagePiece): boolean {
  const windowEnd = piece.sourceStart + maxLength - piece.reopeningFence.length;
  // Every position the cut could take exists, and so do the characters a fence check reads past them.
  if (text.length <= windowEnd + fenceMarkerLookahead) return false;
  // Something visible follows the window, so the cut is not pulled back to keep the next piece visible.
  if (!/\S/.test(text.slice(windowEnd))) return false;
  if (text.includes('\n', windowEnd)) return true;
  // The line still being written began inside the window: if it may yet become a closing fence, a
  // break just before it would leave an empty code block, which the cut avoids once it knows.
  const lastLine = text.slice(text.lastIndexOf('\n') + 1);
  const firstVisible = /\S/.exec(lastLine)?.[0];
  return firstVisible !== undefined && firstVisible !== '`' && firstVisible !== '~';
}

function chooseCut(layout: Layout, start: number, reopeningLength: number): number {
  const budget = layout.maxLength - reopeningLength;
  const windowEnd = Math.min(start + budget, layout.text.length);
  // Leave the next piece something visible where possible: platforms reject or hide a blank message.
  const cap = layout.lastVisibleIndex > start ? Math.min(layout.lastVisibleIndex, windowEnd) : windowEnd;
  // A paragraph or line break is worth a shorter piece, but not one under half full.
  const halfEnd = start + Math.floor(budget / 2);
  const cappedBreak = selectBreak(findBreaks(layout, start, cap, reopeningLength), start, halfEnd);
  if (cappedBreak !== null) return cappedBreak;
  if (cap < windowEnd) {
    const uncappedBreak = selectBreak(findBreaks(layout, start, windowEnd, reopeningLength), start, halfEnd);
    if (uncappedBreak !== null) return uncappedBreak;
  }
  return hardCut(layout, start, cap, reopeningLength);
}

function selectBreak(breaks: Breaks, start: number, halfEnd: number): number | null {
  if (breaks.paragraphEnd >= halfEnd) return breaks.paragraphEnd;
  if (breaks.lineEnd >= halfEnd) return breaks.lineEnd;
  if (breaks.anyEnd > start) return breaks.anyEnd;
  if (breaks.awkwardEnd > start) return breaks.awkwardEnd;
  return null;
}

function findBreaks(layout: Layout, start: number, lastEnd: number, reopeningLength: number): Breaks {
  const { text } = layout;
  const breaks: Breaks = { paragraphEnd: -1, lineEnd: -1, anyEnd: -1, awkwardEnd: -1 };
  const consider = (end: number, kind: 'paragraph' | 'line' | 'space'): void => {
    const closingLength = closingFenceAt(layout, end).length;
    if (reopeningLength + end - start + closingLength > layout.maxLength) return;
    const region = findFenceAt(layout.regions, end);
    if (region !== null && (end === region.contentStart || end === region.closingLineStart)) {
      breaks.awkwardEnd = end;
      return;
    }
    if (kind === 'paragraph') breaks.paragraphEnd = end;
    if (kind !== 'space') breaks.lineEnd = end;
    breaks.anyEnd = end;
  };
  let line = describeLine(text, text.lastIndexOf('\n', start - 1) + 1, start);
  for (let end = start + 1; end <= lastEnd; end += 1) {
    const character = text[end - 1];
    if (character === '\n') {
      consider(end, line.hasVisible ? 'line' : 'paragraph');
      line = { hasVisible: false, isFenceLike: false };
    } else if (character === ' ' || character === '\t' || character === '\r') {
      if (line.hasVisible && !line.isFenceLike) consider(end, 'space');
    } else if (!line.hasVisible) {
      line = { hasVisible: true, isFenceLike: startsFenceMarker(text, end - 1) };
    }
  }
  return breaks;
}

function describeLine(
  text: string,
  lineStart: number,
  end: number,
): { hasVisible: boolean; isFenceLike: boolean } {
  const prefix = text.slice(lineStart, end);
  const firstVisible = prefix.search(/\S/);
  if (firstVisible === -1) return { hasVisible: false, isFenceLike: false };
  return { hasVisible: true, isFenceLike: startsFenceMarker(text, lineStart + firstVisible) };
}

/** Splits a word that alone is longer than a piece, at the last position that fits. */
function hardCut(layout: Layout, start: number, lastEnd: number, reopeningLength: number): number {
  let end = lastEnd;
  const fits = (candidateEnd: number): boolean =>
    reopeningLength + candidateEnd - start + closingFenceAt(layout, candidateEnd).length <= layout.maxLength;
  while (end > start + 1 && !fits(end)) end -= 1;
  // Keep a surrogate pair (an emoji, say) whole rather than send half a character.
  if (end > start + 1 && isHighSurrogate(layout.text.charCodeAt(end - 1))) end -= 1;
  return end;
}

function reopeningFenceAt(layout: Layout, start: number): string {
  const region = findFenceAt(layout.regions, start);
  if (region === null) return '';
  const withLanguage = `${region.marker}${region.language}\n`;
  // An absurdly long language tag must not eat the piece; the code is still shown as a block.
  const isShortEnough = withLanguage.length + region.marker.length + 1 <= layout.maxLength / 4;
  return isShortEnough ? withLanguage : `${region.marker}\n`;
}

function closingFenceAt(layout: Layout, end: number): string {
  const region = findFenceAt(layout.regions, end);
  if (region === null) return '';
  return layout.text[end - 1] === '\n' ? region.marker : `\n${region.marker}`;
}

function makePiece(layout: Layout, start: number, end: number, reopeningFence: string): MessagePiece {
  const body = layout.text.slice(start, end);
  const closingFence = closingFenceAt(layout, end);
  return {
    text: reopeningFence + body + closingFence,
    body,
    sourceStart: start,
    sourceEnd: end,
    reopeningFence,
    closingFence,
  };
}

function findLastVisibleIndex(text: string): number {
  for (let index = text.length - 1; index >= 0; index -= 1) {
    if (!/\s/.test(text[index] ?? '')) return index;
  }
  return -1;
}

function isHighSurrogate(codeUnit: number): boolean {
  return codeUnit >= 0xd800 && codeUnit <= 0xdbff;
}
