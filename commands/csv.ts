/**
 * Rows as RFC 4180 CSV: a cell is quoted when it holds a comma, quote or line break; CRLF line ends.
 * A cell that a spreadsheet would run as a formula (`=`, `+`, `@`, a tab, or `-` not starting a
 * number) gets a leading `'`, because the values come from images and text anyone can post.
 */
export function toCsv(rows: ReadonlyArray<readonly string[]>): string {
  const neutralized = (value: string) => (/^([=+@\t\r]|-(?![\d.]))/.test(value) ? `'${value}` : value);
  const cell = (value: string) => {
    const safe = neutralized(value);
    return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
  };
  return `${rows.map((row) => row.map(cell).join(',')).join('\r\n')}\r\n`;
}
