import type { DocumentSection } from '../extracted-document.ts';
import type { TextBudget } from './text-budget.ts';

/** Rows per section: each section is one citable range, and the budget cuts between sections. */
const rowsPerSection = 50;

/** `A`, `B`, … `Z`, `AA`: the column letters of spreadsheets, 1-based. */
export function columnLetters(columnNumber: number): string {
  let letters = '';
  for (let rest = columnNumber; rest > 0; rest = Math.floor((rest - 1) / 26)) {
    letters = String.fromCharCode(65 + ((rest - 1) % 26)) + letters;
  }
  return letters;
}

/**
 * A table as Markdown with its row numbers and column letters, in sections of 50 rows each headed
 * by its range (`Sheet1!A1:D50`), so the model can cite cells as a spreadsheet names them.
 * Returns false when the budget ran out.
 */
export function addTableSections({
  sheetName,
  rows,
  budget,
}: {
  sheetName: string;
  /** Cell texts by row, first row first; row numbers start at 1. */
  rows: readonly (readonly string[])[];
  budget: TextBudget;
}): boolean {
  const columnCount = Math.max(0, ...rows.map((row) => row.length));
  if (columnCount === 0) return true;
  const header = ['', ...Array.from({ length: columnCount }, (_, index) => columnLetters(index + 1))];
  const lastColumn = columnLetters(columnCount);
  for (let start = 0; start < rows.length; start += rowsPerSection) {
    const chunk = rows.slice(start, start + rowsPerSection);
    const lines = [
      `| ${header.join(' | ')} |`,
      `|${header.map(() => '---').join('|')}|`,
      ...chunk.map((row, index) => {
        const cells = Array.from({ length: columnCount }, (_, column) => cleanCell(row[column] ?? ''));
        return `| ${start + index + 1} | ${cells.join(' | ')} |`;
      }),
    ];
    const section: DocumentSection = {
      location: `${quoteSheetName(sheetName)}!A${start + 1}:${lastColumn}${start + chunk.length}`,
      text: lines.join('\n'),
    };
    if (!budget.add(section)) return false;
  }
  return true;
}

function cleanCell(text: string): string {
  return text
    .replace(/\s*\n\s*/g, ' ')
    .replaceAll('|', '\\|')
    .trim();
}

// As spreadsheets write it: a name with spaces or punctuation is quoted ('Q1 sales'!A1).
function quoteSheetName(name: string): string {
  return /^[A-Za-z_][\w.]*$/.test(name) ? name : `'${name.replaceAll("'", "''")}'`;
}
