import { Keyv } from 'keyv';
import { describe, expect, it } from 'vitest';
import { createDocumentReader, type ReadResult } from '../../src/documents/document-reader.ts';
import { createDocumentStore } from '../../src/documents/document-store.ts';
import { createCapturedLogger } from '../support/capture-logger.ts';
import { writeZip } from '../support/zip-writer.ts';

/**
 * A spreadsheet is a zip like a Word file (ECMA-376 Part 2, Open Packaging), so a sheet part that
 * unpacks to gigabytes must be refused before exceljs inflates it, as a DOCX bomb is.
 */
const contentTypes = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>`;
const workbook = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>`;

function spreadsheetBomb({ isLyingAboutSize }: { isLyingAboutSize: boolean }): Uint8Array {
  const padding = ' '.repeat(50_000_000);
  return writeZip([
    { name: '[Content_Types].xml', data: contentTypes },
    { name: 'xl/workbook.xml', data: workbook },
    {
      name: 'xl/worksheets/sheet1.xml',
      data: `<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${padding}</sheetData></worksheet>`,
      ...(isLyingAboutSize ? { declaredSize: 2_000 } : {}),
    },
  ]);
}

function problemOf(result: ReadResult): string | undefined {
  return 'problem' in result ? result.problem : undefined;
}

describe('a spreadsheet zip bomb', () => {
  it('is refused before it is inflated, whether it declares its size or lies about it', async () => {
    const { logger } = createCapturedLogger([]);
    const reader = createDocumentReader({
      store: createDocumentStore({ store: new Keyv(), maxTotalBytes: 10_000_000, lifetimeMs: 60_000 }),
      maxBytes: 5 * 1024 * 1024,
      readLimits: {
        maxUnits: 100,
        maxCharacters: 200_000,
        maxRenderedPages: 2,
        maxUnpackedBytes: 20_000_000,
      },
      workerLimits: { timeoutMs: 20_000, maxHeapMb: 256 },
      logger,
    });
    const honest = spreadsheetBomb({ isLyingAboutSize: false });
    expect(honest.length).toBeLessThan(200_000);
    const load = (bytes: Uint8Array) => async () => bytes;
    expect(problemOf(await reader.read({ name: 'bomb.xlsx', load: load(honest) }))).toBe(
      'bomb.xlsx unpacks to more than 19.1 MB, more than I unpack, so I left it out.',
    );
    const lying = spreadsheetBomb({ isLyingAboutSize: true });
    expect(problemOf(await reader.read({ name: 'liar.xlsx', load: load(lying) }))).toMatch(
      /^liar\.xlsx unpacks to more than/,
    );
  });
});
