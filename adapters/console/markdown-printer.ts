import { Lexer } from 'marked';
import stringWidth from 'string-width';
import type { RenderMarkdown } from './terminal-markdown.ts';

/** One message printed to a terminal as rendered Markdown while its text grows. */
export interface MarkdownPrinter {
  /**
   * Shows the message's whole text so far. Text that extends what was shown, or replaces it while
   * nothing of it is printed for good yet (a waiting line giving way to the answer), is shown and
   * true returned; otherwise nothing is written and false returned: a terminal cannot take it back.
   */
  show(text: string): boolean;
  /** As `show` for the message's last text; what is on screen then stays as it is. */
  end(text: string): boolean;
}

/** What the printer needs from the terminal. */
export interface MarkdownTerminal {
  readonly write: (text: string) => void;
  readonly render: RenderMarkdown;
  /** The terminal's width in columns now (it can be resized while a reply streams). */
  readonly columns: () => number;
  /** The terminal's height in rows now. */
  readonly rows: () => number;
}

/**
 * Prints a growing Markdown message to a terminal, rendered, as it streams. A terminal cannot take
 * back what scrolled away, so the message is printed in two parts: lines that can no longer change
 * are printed once and stay (every finished block, and the lines of the block being written except
 * its last), and the rest, the live part, is redrawn in place on each update by moving the cursor up
 * over it. Markdown decides a block's look only once the block is whole (`**bold**` once it closes,
 * a table once its rows are there), and the live part is only ever the end of one block, so redrawing
 * it is cheap. A live part taller than the screen could not be redrawn, so it is not shown until its
 * lines are settled.
 *
 * The cursor stays at the end of the last line printed; the caller adds the newline after `end`.
 */
export function createMarkdownPrinter(terminal: MarkdownTerminal): MarkdownPrinter {
  // Where the block still being written starts in the text; everything before it is printed.
  let blockStart = 0;
  // How many rendered lines of that block are printed for good (each ended by a newline).
  let settledLineCount = 0;
  // Rows the live part takes on screen now, so the next update can draw over them.
  let liveRows = 0;
  let isEnded = false;
  let shown = '';

  const eraseLive = () => {
    if (liveRows === 0) return;
    terminal.write(`\r${liveRows > 1 ? `\x1b[${liveRows - 1}A` : ''}\x1b[J`);
    liveRows = 0;
  };

  const update = (rawText: string, { isLast }: { isLast: boolean }): boolean => {
    const text = rawText.replace(/\r\n?/g, '\n');
    const isSettledAny = blockStart > 0 || settledLineCount > 0;
    if (isEnded || (isSettledAny && !text.startsWith(shown))) return false;
    shown = text;
    eraseLive();
    const pending = text.slice(blockStart);
    const completeLength = pending.lastIndexOf('\n') + 1;
    // Blocks wholly inside the finished lines, with another block after them, cannot change.
    for (const block of finishedBlocks(pending.slice(0, completeLength))) {
      const lines = renderedLines(terminal.render, block);
      // One blank line between blocks, as the renderer puts it.
      terminal.write(`${lines.slice(settledLineCount).join('\n')}\n\n`);
      blockStart += block.length;
      settledLineCount = 0;
    }
    const blockText = text.slice(blockStart);
    const lines = renderedLines(terminal.render, blockText);
    if (isLast) {
      terminal.write(lines.slice(settledLineCount).join('\n'));
      isEnded = true;
      return true;
    }
    // The finished lines of the block, but for the last of them, which the next line may still join
    // (a table's rows, a heading's underline): settled unless the block may be a table.
    const finishedText = blockText.slice(0, blockText.lastIndexOf('\n') + 1);
    if (finishedText !== '' && !/^ {0,3}\|/.test(finishedText)) {
      const finishedLines = renderedLines(terminal.render, finishedText).slice(0, -1);
      if (finishedLines.length > settledLineCount) {
        terminal.write(`${finishedLines.slice(settledLineCount).join('\n')}\n`);
        settledLineCount = finishedLines.length;
      }
    }
    const live = lines.slice(settledLineCount);
    const columns = Math.max(1, terminal.columns());
    const rows = live.reduce((sum, line) => sum + Math.max(1, Math.ceil(stringWidth(line) / columns)), 0);
    // Room for the prompt's line too: a live part that scrolled off the top could not be erased.
    if (live.join('') === '' || rows > Math.max(1, terminal.rows() - 2)) return true;
    terminal.write(live.join('\n'));
    liveRows = rows;
    return true;
  };

  return {
    show: (text) => update(text, { isLast: false }),
    end: (text) => update(text, { isLast: true }),
  };
}

/** The rendered lines of some Markdown, without the blank lines the renderer ends a block with. */
function renderedLines(render: RenderMarkdown, markdown: string): string[] {
  if (markdown.trim() === '') return [];
  return render(markdown).replace(/\n+$/, '').split('\n');
}

/**
 * The source of each top-level block in `finishedText` that another block follows (so it is whole),
 * each with the blank lines after it. The last block may still grow and is left out.
 */
function finishedBlocks(finishedText: string): string[] {
  if (finishedText === '') return [];
  const tokens = new Lexer().lex(finishedText);
  const blocks: string[] = [];
  let current = '';
  let consumed = 0;
  for (const token of tokens) {
    if (token.type !== 'space' && current.trim() !== '') {
      blocks.push(current);
      current = '';
    }
    current += token.raw;
    consumed += token.raw.length;
  }
  // Tokens that do not add up to the text (a definition the lexer keeps aside) leave it whole.
  return consumed === finishedText.length ? blocks : [];
}
