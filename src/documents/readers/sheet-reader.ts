import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import { renderNotice } from '../../notices/render-notice.ts';
import type { ExtractedDocument, ReaderInput, TextReaderInput } from '../extracted-document.ts';
import { ReadProblem } from './read-problem.ts';
import { addTableSections } from './table-text.ts';
import { createTextBudget } from './text-budget.ts';

/** Rows read from one sheet at most; the character budget usually stops far earlier. */
const maxRowsPerSheet = 20_000;

/** Every sheet (up to the caps) as tables with cell ranges, through exceljs. */
export async function readXlsx({ bytes, name, limits }: ReaderInput): Promise<ExtractedDocument> {
  const workbook = new ExcelJS.Workbook();
  try {
    await workbook.xlsx.load(Buffer.from(bytes) as unknown as ArrayBuffer);
  } catch (error) {
    throw new ReadProblem({
      reason: 'damaged',
      detail: `exceljs: ${(error as Error).message}`,
      cause: error,
    });
  }
  const budget = createTextBudget(limits.maxCharacters);
  const sheets = workbook.worksheets;
  let readSheetCount = 0;
  for (const sheet of sheets.slice(0, limits.maxUnits)) {
    const rows: string[][] = [];
    const lastRow = Math.min(sheet.rowCount, maxRowsPerSheet);
    for (let rowNumber = 1; rowNumber <= lastRow; rowNumber += 1) {
      const row = sheet.getRow(rowNumber);
      const cells: string[] = [];
      for (let column = 1; column <= sheet.columnCount; column += 1)
        cells.push(cellText(row.getCell(column)));
      rows.push(cells);
    }
    readSheetCount += 1;
    if (!addTableSections({ sheetName: sheet.name, rows, budget })) break;
  }
  const notes: string[] = [];
  if (budget.isCut || readSheetCount < sheets.length) {
    notes.push(
      renderNotice({
        type: 'sheet-partly-read',
        name,
        readSheetCount,
        sheetCount: sheets.length,
        characterCount: budget.characterCount,
      }),
    );
  }
  return {
    name,
    kind: 'xlsx',
    sections: budget.sections,
    unitCount: sheets.length,
    readUnitCount: readSheetCount,
    pageImages: [],
    notes,
  };
}

function cellText(cell: ExcelJS.Cell): string {
  try {
    return cell.text ?? '';
  } catch {
    // A formula whose cached result exceljs cannot format: the raw value is still worth showing.
    return String(cell.value ?? '');
  }
}

/** A CSV (or TSV) file as one table, its ranges named after the file. */
export function readCsv({ text, name, limits }: TextReaderInput): ExtractedDocument {
  const parsed = Papa.parse<string[]>(text, { skipEmptyLines: 'greedy', preview: maxRowsPerSheet });
  const budget = createTextBudget(limits.maxCharacters);
  addTableSections({ sheetName: name.replace(/\.(csv|tsv)$/i, ''), rows: parsed.data, budget });
  const notes = budget.isCut
    ? [
        `${name} is long, so I read only its first part (${budget.characterCount.toLocaleString('en-US')} characters).`,
      ]
    : [];
  return { name, kind: 'csv', sections: budget.sections, pageImages: [], notes };
}
