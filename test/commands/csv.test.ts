import { describe, expect, it } from 'vitest';
import { toCsv } from '../../commands/csv.ts';

describe('toCsv', () => {
  it('quotes commas, quotes and line breaks', () => {
    expect(toCsv([['a,b', 'say "hi"', 'two\nlines', 'plain']])).toBe(
      '"a,b","say ""hi""","two\nlines",plain\r\n',
    );
  });

  it('neutralizes cells a spreadsheet would run as formulas, but keeps negative numbers', () => {
    expect(toCsv([['=HYPERLINK("x")', '+cmd', '@SUM(A1)', '-2.50', '-x', '\tcell']])).toBe(
      `"'=HYPERLINK(""x"")",'+cmd,'@SUM(A1),-2.50,'-x,'\tcell\r\n`,
    );
  });
});
