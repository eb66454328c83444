import { type FenceRegion, findFenceRegions } from './markdown-fences.ts';

/**
 * Where the first part of a reply still being written can end, when a platform that is short of
 * edits but not of posts shows it at once as a message of its own (see `Surface.earlyPartDelayMs`):
 * the index just after the last whitespace in `text` from `start` on such that the part renders on
 * its own and the next message starts cleanly. Null when there is no such place yet.
 *
 * A part never ends inside a code block (it would need a closing fence the joined messages do not
 * have), inside a table line or between two table rows (the rest of the table would lose its
 * header), inside a link (`<url|label>`, `[label](url)`), nor with an odd number of inline code
 * ticks or `**` (an unclosed span shows its markers).
 * The whitespace at the cut stays with the part, so the parts join to exactly the text.
 */
export function earlyPartEnd(text: string, start = 0): number | null {
  const regions = findFenceRegions(text);
  let candidates = 0;
  for (let end = text.length; end > start && candidates < candidateLimit; end -= 1) {
    if (!/\s/.test(text[end - 1] ?? '')) continue;
    candidates += 1;
    if (!/\S/.test(text.slice(start, end))) return null;
    // Only a cut whose next character exists: text appended later could still turn it into a fence
    // line or a table row the part would split.
    if (end >= text.length) continue;
    if (isInCodeBlock(text, regions, end)) continue;
    if (isInTable(text, end)) continue;
    const part = text.slice(start, end);
    if (count(part, '`') % 2 !== 0 || count(part, '**') % 2 !== 0) continue;
    if (isOpen(part, '<', '>') || isOpen(part, '[', ']')) continue;
    return end;
  }
  return null;
}

/**
 * How many places before the end are tried: enough to step back over an unclosed span or a table,
 * few enough that a long text with an early unclosed tick costs little; the part can wait.
 */
const candidateLimit = 64;

/** Whether the cut falls anywhere from a block's opening fence line to the end of its closing one. */
function isInCodeBlock(text: string, regions: readonly FenceRegion[], end: number): boolean {
  return regions.some((region) => {
    if (end <= region.openingLineStart) return false;
    if (!region.isClosed) return true;
    const closingLineBreak = text.indexOf('\n', region.closingLineStart);
    return closingLineBreak === -1 || end <= closingLineBreak;
  });
}

/** Whether the cut is inside a table row, or at a line end between two table rows. */
function isInTable(text: string, end: number): boolean {
  const lineStart = text.lastIndexOf('\n', end - 2) + 1;
  const isRow = (from: number) => /^[ \t]*\|/.test(text.slice(from, from + 200));
  if (text[end - 1] !== '\n') return isRow(lineStart);
  return isRow(lineStart) && isRow(end);
}

/** Whether `part` opens a bracket (a link) after its last closing one. */
function isOpen(part: string, opening: string, closing: string): boolean {
  return part.lastIndexOf(opening) > part.lastIndexOf(closing);
}

function count(text: string, marker: string): number {
  let found = 0;
  for (let index = text.indexOf(marker); index !== -1; index = text.indexOf(marker, index + marker.length)) {
    found += 1;
  }
  return found;
}
