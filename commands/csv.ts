/**
 * Rows as RFC 4180 CSV: a cell is quoted when it holds a comma, quote or line break (and a semicolon
 * or tab, the separators a spreadsheet in another locale may split on); CRLF line ends.
 *
 * The values come from images and text anyone can post, and a spreadsheet runs a cell as a formula
 * when it starts with `=`, `+`, `-` or `@`. Following OWASP's CSV injection guidance
 * (https://owasp.org/www-community/attacks/CSV_Injection: no cell may begin with `=`, `+`, `-`,
 * `@`, tab or carriage return; prepend a single quote to those that do), such a cell gets a leading
 * `'`, which the spreadsheet shows as text. The start is judged as a spreadsheet reads it: past
 * leading spaces of any kind (NBSP, ideographic space, zero-width ones) and control characters, and
 * after NFKC, which turns the full-width `＝＋－＠` and the small forms `﹦﹢﹣` into the ASCII ones
 * that some spreadsheets accept in their place. A plain number (`-2`, `+3.5`, `-1e5`, `-1,234.5`)
 * stays a number; `-2+3+cmd|' /C calc'!A0` is not one, so it is neutralised.
 */
export function toCsv(rows: ReadonlyArray<readonly string[]>): string {
  const cell = (value: string) => {
    const safe = neutralizeFormula(value);
    return /[",;\t\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
  };
  return `${rows.map((row) => row.map(cell).join(',')).join('\r\n')}\r\n`;
}

/** What a spreadsheet skips before it looks at a cell's first character. */
const leadingBlank = /^[\s\p{Cc}\p{Cf}\p{Zs}]+/u;
const formulaStart = /^[=+\-@]/;
/**
 * An optionally signed decimal with a digit before its exponent (`+e0` is a cell reference to a
 * spreadsheet, not a number), thousands separators or an exponent, and nothing else.
 */
const plainNumber = /^[+-]?(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?%?$/;

/** The cell, with a leading `'` when a spreadsheet could run it as a formula. */
export function neutralizeFormula(value: string): string {
  // A leading tab or carriage return is on OWASP's list by itself: it can hide what follows.
  if (/^[\t\r]/.test(value)) return `'${value}`;
  const seen = value.normalize('NFKC').replace(leadingBlank, '');
  if (!formulaStart.test(seen)) return value;
  if (plainNumber.test(seen)) return value;
  return `'${value}`;
}
