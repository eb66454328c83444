/** Rows as RFC 4180 CSV: every cell quoted when it holds a comma, quote or line break; CRLF line ends. */
export function toCsv(rows: ReadonlyArray<readonly string[]>): string {
  const cell = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);
  return `${rows.map((row) => row.map(cell).join(',')).join('\r\n')}\r\n`;
}
