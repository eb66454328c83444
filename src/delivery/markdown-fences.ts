/**
 * A fenced code block (``` or ~~~) found in Markdown text, with its positions in that text.
 * Lines are classified the way CommonMark does, except that any indentation is accepted: models
 * indent fences inside list items, and Discord's renderer does not care about indentation either.
 */
export interface FenceRegion {
  /** Index where the opening fence line starts. */
  readonly openingLineStart: number;
  /** Index just after the opening fence line's line break (the text length when it has none yet). */
  readonly contentStart: number;
  /** Index where the closing fence line starts; the text length when the block is still open. */
  readonly closingLineStart: number;
  /** Whether a closing fence line was found; a streaming reply is often in the middle of a block. */
  readonly isClosed: boolean;
  /** The fence characters as written, e.g. "```" or "~~~~"; a closing line needs at least as many. */
  readonly marker: string;
  /** The first word of the info string, e.g. "ts"; empty when the fence names no language. */
  readonly language: string;
}

const fenceLinePattern = /^[ \t]*(`{3,}|~{3,})(.*)$/;

/** Finds every fenced code block in the text, in order; the last one may be unclosed. */
export function findFenceRegions(text: string): FenceRegion[] {
  const regions: FenceRegion[] = [];
  let opening: Omit<FenceRegion, 'closingLineStart' | 'isClosed'> | null = null;
  let lineStart = 0;
  while (lineStart < text.length) {
    const lineBreakIndex = text.indexOf('\n', lineStart);
    const lineEnd = lineBreakIndex === -1 ? text.length : lineBreakIndex;
    const nextLineStart = lineBreakIndex === -1 ? text.length : lineBreakIndex + 1;
    const match = fenceLinePattern.exec(text.slice(lineStart, lineEnd));
    const marker = match?.[1];
    const infoString = match?.[2] ?? '';
    if (marker !== undefined && opening === null) {
      // CommonMark: a backtick fence's info string may not contain a backtick (```x``` is inline code).
      if (!(marker.startsWith('`') && infoString.includes('`'))) {
        const language = infoString.trim().split(/\s+/)[0] ?? '';
        opening = { openingLineStart: lineStart, contentStart: nextLineStart, marker, language };
      }
    } else if (
      marker !== undefined &&
      opening !== null &&
      isClosingFence(opening.marker, marker, infoString)
    ) {
      regions.push({ ...opening, closingLineStart: lineStart, isClosed: true });
      opening = null;
    }
    lineStart = nextLineStart;
  }
  if (opening !== null) regions.push({ ...opening, closingLineStart: text.length, isClosed: false });
  return regions;
}

function isClosingFence(openingMarker: string, marker: string, infoString: string): boolean {
  return marker[0] === openingMarker[0] && marker.length >= openingMarker.length && infoString.trim() === '';
}

/**
 * The code block a cut at `index` would fall inside, or null. A cut exactly at the closing line's
 * start is inside (the closing line is still ahead); a cut at the opening line's start is outside.
 */
export function findFenceAt(regions: readonly FenceRegion[], index: number): FenceRegion | null {
  for (const region of regions) {
    if (region.openingLineStart > index) return null;
    if (index >= region.contentStart && index <= region.closingLineStart) return region;
  }
  return null;
}

/**
 * Whether a fence marker starts at `index`. A line whose first visible characters are one is never
 * cut in the middle: half a fence line would open or close a block that the other half does not.
 */
export function startsFenceMarker(text: string, index: number): boolean {
  return text.startsWith('```', index) || text.startsWith('~~~', index);
}
