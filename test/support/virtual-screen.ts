/**
 * What a terminal shows after some output: the few things parley's terminal output uses (text that
 * wraps at the last column, CR, LF, cursor up, erase to the end of the screen), with colours and
 * other sequences dropped. Rows scrolled off the top stay, as a terminal's scrollback keeps them.
 */
export function createVirtualScreen({ columns }: { columns: number }): {
  write(text: string): void;
  /** Every row, scrollback included, trailing spaces and trailing empty rows removed. */
  text(): string;
} {
  const rows: string[][] = [[]];
  let row = 0;
  let column = 0;
  // A character written in the last column leaves the cursor there until the next one wraps.
  let isWrapPending = false;
  const rowAt = (index: number) => {
    while (rows.length <= index) rows.push([]);
    return rows[index] as string[];
  };
  return {
    write(text) {
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the sequences a terminal interprets.
      const pieces = text.match(/\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\r|\n|[^\r\n\x1b]/gu) ?? [];
      for (const piece of pieces) {
        if (piece === '\r') {
          column = 0;
          isWrapPending = false;
        } else if (piece === '\n') {
          row += 1;
          column = 0;
          isWrapPending = false;
          rowAt(row);
        } else if (piece.startsWith('\x1b[')) {
          const count = Number.parseInt(piece.slice(2), 10) || 1;
          const command = piece.at(-1);
          if (command === 'A') {
            row = Math.max(0, row - count);
            isWrapPending = false;
          } else if (command === 'J') {
            rowAt(row).length = column;
            rows.length = row + 1;
          } else if (command === 'G') {
            column = count - 1;
            isWrapPending = false;
          } else if (command === 'K') {
            rowAt(row).length = column;
          }
        } else if (!piece.startsWith('\x1b')) {
          if (isWrapPending) {
            row += 1;
            column = 0;
            isWrapPending = false;
          }
          const line = rowAt(row);
          while (line.length < column) line.push(' ');
          line[column] = piece;
          if (column === columns - 1) isWrapPending = true;
          else column += 1;
        }
      }
    },
    text() {
      return rows
        .map((line) => line.join('').replace(/\s+$/, ''))
        .join('\n')
        .replace(/\n+$/, '');
    },
  };
}
