import type { types } from '@slack/bolt';
import { findFenceRegions } from '../../src/delivery/markdown-fences.ts';

/**
 * Markdown tables in a reply. Slack's `markdown` block does not render them ("Markdown block",
 * docs.slack.dev/reference/block-kit/blocks/markdown-block: tables are among what it does not
 * support), nor does a stream's `markdown_text`, so a model's table would show as rows of pipes.
 * A message may instead carry one `table` block (docs.slack.dev/reference/block-kit/blocks/
 * table-block: at most 100 rows of at most 20 cells), and anything else is drawn as preformatted
 * text, where the columns still line up.
 */
export interface MarkdownTable {
  /** Index in the text where the table's header line starts. */
  readonly start: number;
  /** Index just after the table's last row (before its line break). */
  readonly end: number;
  readonly header: readonly string[];
  readonly alignments: readonly ('left' | 'center' | 'right' | undefined)[];
  readonly rows: readonly (readonly string[])[];
}

/** Only tables whose lines start with `|` are recognised, so a line is known to be one from its start. */
const tableLine = /^[ \t]*\|/;
const separatorCell = /^:?-+:?$/;

/** The table block's limits (table-block page): rows, including the header, and cells a row. */
const maxTableRows = 100;
const maxTableColumns = 20;

/** Every table in the text outside code blocks, in order. */
export function findTables(text: string): MarkdownTable[] {
  const lines = linesOf(text);
  const isCode = codeLineTester(text);
  const tables: MarkdownTable[] = [];
  for (let index = 0; index < lines.length - 1; index += 1) {
    const header = lines[index];
    const separator = lines[index + 1];
    if (header === undefined || separator === undefined || isCode(header.start)) continue;
    const alignments = alignmentsOf(separator.text);
    if (!tableLine.test(header.text) || alignments === undefined) continue;
    const headerCells = cellsOf(header.text);
    if (headerCells.length !== alignments.length) continue;
    let last = index + 1;
    while (lines[last + 1] !== undefined && tableLine.test(lines[last + 1]?.text ?? '')) last += 1;
    const rowLines = lines.slice(index + 2, last + 1);
    tables.push({
      start: header.start,
      end: (lines[last]?.start ?? 0) + (lines[last]?.text.length ?? 0),
      header: headerCells,
      alignments,
      rows: rowLines.map((line) => fitRow(cellsOf(line.text), headerCells.length)),
    });
    index = last;
  }
  return tables;
}

/** The text with every table drawn as preformatted text; without padding when it would exceed `maxLength`. */
export function preformatTables(text: string, { maxLength }: { maxLength?: number } = {}): string {
  const tables = findTables(text);
  if (tables.length === 0) return text;
  const aligned = replaceTables(text, tables, true);
  return maxLength !== undefined && aligned.length > maxLength ? replaceTables(text, tables, false) : aligned;
}

/**
 * Splits off a table the text ends with, as a `table` block, when one block can hold it; the rest of
 * the text (other tables preformatted) stays Markdown. A table followed by more text stays
 * preformatted, so the order of the reply never depends on where Slack places the block.
 */
export function splitTrailingTable(
  text: string,
  { maxLength }: { maxLength?: number } = {},
): { markdown: string; table: types.TableBlock | undefined } {
  const tables = findTables(text);
  const last = tables.at(-1);
  const isTrailing = last !== undefined && text.slice(last.end).trim() === '';
  if (last === undefined || !isTrailing || !fitsTableBlock(last)) {
    return { markdown: preformatTables(text, { maxLength }), table: undefined };
  }
  return { markdown: preformatTables(text.slice(0, last.start), { maxLength }), table: tableBlockOf(last) };
}

/**
 * A growing text without a table that may still be growing at its end: from the first of the lines
 * starting with `|` that end the text. A stream cannot take text back, and such lines are shown as a
 * table, or not, only once the line after them says where the table ends.
 */
export function withoutTrailingTableLines(text: string): string {
  const lines = linesOf(text);
  const isCode = codeLineTester(text);
  let end = lines.length - 1;
  if (lines[end]?.text === '' && end > 0) end -= 1;
  let first = end + 1;
  while (first > 0 && tableLine.test(lines[first - 1]?.text ?? '') && !isCode(lines[first - 1]?.start ?? 0)) {
    first -= 1;
  }
  return first > end ? text : text.slice(0, lines[first]?.start ?? text.length);
}

function fitsTableBlock(table: MarkdownTable): boolean {
  return table.rows.length + 1 <= maxTableRows && table.header.length <= maxTableColumns;
}

function tableBlockOf(table: MarkdownTable): types.TableBlock {
  const headerCells = table.header.map((cell) => ({
    type: 'rich_text' as const,
    elements: [
      {
        type: 'rich_text_section' as const,
        elements: [{ type: 'text' as const, text: cellText(cell), style: { bold: true } }],
      },
    ],
  }));
  const rows = table.rows.map((row) =>
    row.map((cell) => ({ type: 'raw_text' as const, text: cellText(cell) })),
  );
  const hasAlignment = table.alignments.some((alignment) => alignment !== undefined);
  return {
    type: 'table',
    rows: [headerCells, ...rows],
    ...(hasAlignment
      ? { column_settings: table.alignments.map((align) => (align === undefined ? {} : { align })) }
      : {}),
  };
}

function replaceTables(text: string, tables: readonly MarkdownTable[], isAligned: boolean): string {
  let result = '';
  let position = 0;
  for (const table of tables) {
    result += `${text.slice(position, table.start)}\`\`\`\n${drawTable(table, isAligned)}\n\`\`\``;
    position = table.end;
  }
  return result + text.slice(position);
}

function drawTable(table: MarkdownTable, isAligned: boolean): string {
  const all = [table.header, ...table.rows].map((row) => row.map((cell) => cellText(cell, '')));
  const widths = table.header.map((_, column) =>
    isAligned ? Math.max(...all.map((row) => [...(row[column] ?? '')].length)) : 0,
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => pad(cell, widths[column] ?? 0, table.alignments[column]))
      .join(' | ')
      .trimEnd();
  const rule = widths.map((width) => '-'.repeat(Math.max(width, 3))).join('-|-');
  const [header = [], ...rows] = all;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

function pad(cell: string, width: number, alignment: 'left' | 'center' | 'right' | undefined): string {
  const gap = Math.max(0, width - [...cell].length);
  if (alignment === 'right') return ' '.repeat(gap) + cell;
  if (alignment === 'center') return ' '.repeat(Math.floor(gap / 2)) + cell + ' '.repeat(Math.ceil(gap / 2));
  return cell + ' '.repeat(gap);
}

/**
 * A cell as plain text: emphasis markers and code ticks go (neither a table cell nor preformatted
 * text renders them), a link keeps its address, a fence inside a cell cannot end the code block.
 */
function cellText(cell: string, empty = '—'): string {
  const plain = cell
    .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, '$1 ($2)')
    .replace(/(\*\*|__|~~)(.+?)\1/g, '$2')
    .replace(/`([^`]+)`/g, '$1')
    .replaceAll('```', "'''")
    .trim();
  return plain === '' ? empty : plain;
}

/** A separator line's column alignments, or undefined when the line is not one. */
function alignmentsOf(line: string): MarkdownTable['alignments'] | undefined {
  if (!tableLine.test(line)) return undefined;
  const cells = cellsOf(line);
  if (cells.length === 0 || !cells.every((cell) => separatorCell.test(cell))) return undefined;
  return cells.map((cell) => {
    const isLeft = cell.startsWith(':');
    const isRight = cell.endsWith(':');
    if (isLeft && isRight) return 'center';
    if (isRight) return 'right';
    return isLeft ? 'left' : undefined;
  });
}

function cellsOf(line: string): string[] {
  const inner = line
    .trim()
    .replace(/^\|/, '')
    .replace(/(?<!\\)\|$/, '');
  return inner.split(/(?<!\\)\|/).map((cell) => cell.replaceAll('\\|', '|').trim());
}

function fitRow(cells: readonly string[], width: number): string[] {
  return Array.from({ length: width }, (_, index) => cells[index] ?? '');
}

function linesOf(text: string): Array<{ start: number; text: string }> {
  const lines: Array<{ start: number; text: string }> = [];
  let start = 0;
  for (const line of text.split('\n')) {
    lines.push({ start, text: line });
    start += line.length + 1;
  }
  return lines;
}

/** Whether a position lies inside a fenced code block (fence lines included). */
function codeLineTester(text: string): (position: number) => boolean {
  const regions = findFenceRegions(text);
  return (position) =>
    regions.some((region) => position >= region.openingLineStart && position <= region.closingLineStart);
}
