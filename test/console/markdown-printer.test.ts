import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMarkdownPrinter } from '../../adapters/console/markdown-printer.ts';
import { createTerminalMarkdown } from '../../adapters/console/terminal-markdown.ts';
import { createVirtualScreen } from '../support/virtual-screen.ts';

const render = createTerminalMarkdown({ width: 80 });

function printed(pieces: readonly string[], { columns = 40, rows = 24 } = {}) {
  const screen = createVirtualScreen({ columns });
  const printer = createMarkdownPrinter({
    write: screen.write,
    render,
    columns: () => columns,
    rows: () => rows,
  });
  let text = '';
  for (const piece of pieces) {
    text += piece;
    printer.show(text);
  }
  printer.end(text);
  return screen.text();
}

// The reply rendered at once, as it would look printed whole.
function renderedWhole(text: string, columns = 40) {
  const screen = createVirtualScreen({ columns });
  screen.write(render(text).replace(/\n+$/, ''));
  return screen.text();
}

const replies = [
  'Hello **there**, this is _fine_ and `code` too.',
  'A first paragraph that is long enough to wrap over more than one row of a narrow terminal.\n\nAnd a second **one**.',
  'Steps:\n\n1. open the **lid**\n2. pour `water`\n3. wait\n\nDone.',
  '- one\n- two with **bold**\n  - nested _item_\n- three',
  'Here is code:\n\n```ts\nconst a = 1;\nconst b = a + 1;\n```\n\nThat was it.',
  '# Title\n\nSome text.\n\n## Part two\n\n> a quote\n> over two lines\n\nEnd.',
  '| name | size |\n|---|---|\n| cat | small |\n| horse | large |\n\nA table above.',
  'Line one\nline two of the same paragraph\nline three\n\n_⚠ I dropped the 2 oldest messages._',
];

describe('Markdown printed as it streams', () => {
  it('renders bold, italics and code with no Markdown marks left', () => {
    const screen = printed(['Hello **the', 're**, _fine_ and `co', 'de`.']);
    expect(screen).toBe('Hello there, fine and code.');
  });

  it('renders inline formatting inside list items (marked-terminal leaves it as typed)', () => {
    expect(printed(['- a **bold** item\n- and `code`'])).toBe('  * a bold item\n  * and code');
  });

  it('shows a task list with one box per item', () => {
    const screen = printed(['- [ ] to do\n- [x] done']);
    expect(screen).toMatch(/^ {2}\* \[ \] +to do\n {2}\* \[X\] +done$/);
  });

  it('ends with the screen the whole reply would show, however the reply was cut into pieces', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...replies),
        fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 40 }),
        fc.constantFrom(12, 40, 80),
        (reply, sizes, columns) => {
          const pieces: string[] = [];
          let at = 0;
          for (let index = 0; at < reply.length; index += 1) {
            const size = sizes[index % sizes.length] ?? 1;
            pieces.push(reply.slice(at, at + size));
            at += size;
          }
          expect(printed(pieces, { columns })).toBe(renderedWhole(reply, columns));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('replaces what it showed while nothing is printed for good: a waiting line gives way to the answer', () => {
    const screen = createVirtualScreen({ columns: 40 });
    const printer = createMarkdownPrinter({ write: screen.write, render, columns: () => 40, rows: () => 24 });
    expect(printer.show('_⏳ 5 s: no answer yet…_')).toBe(true);
    expect(printer.show('_⏳ 10 s: the model has not started…_')).toBe(true);
    expect(screen.text()).toBe('⏳ 10 s: the model has not started…');
    expect(printer.show('The **answer**.')).toBe(true);
    printer.end('The **answer**.');
    expect(screen.text()).toBe('The answer.');
  });

  it('refuses to change text that is printed for good, and leaves the screen as it is', () => {
    const screen = createVirtualScreen({ columns: 40 });
    const printer = createMarkdownPrinter({ write: screen.write, render, columns: () => 40, rows: () => 24 });
    printer.show('First paragraph.\n\nSecond one.\n\nThi');
    expect(printer.show('Something else')).toBe(false);
    expect(screen.text()).toBe('First paragraph.\n\nSecond one.\n\nThi');
  });

  it('does not redraw a block taller than the screen, and prints it once it is settled', () => {
    const lines = Array.from({ length: 30 }, (_, index) => `line ${index + 1}`).join('\n');
    const writes: string[] = [];
    const screen = createVirtualScreen({ columns: 40 });
    const printer = createMarkdownPrinter({
      write: (text) => {
        writes.push(text);
        screen.write(text);
      },
      render,
      columns: () => 40,
      rows: () => 10,
    });
    printer.show(`| a |\n${lines}`);
    // A possible table is never settled line by line, and 31 lines do not fit a 10-row screen.
    expect(writes.join('')).toBe('');
    printer.end(`| a |\n${lines}`);
    expect(screen.text()).toBe(renderedWhole(`| a |\n${lines}`));
  });

  it('removes escape sequences the model wrote, so a reply cannot take over the terminal', () => {
    expect(printed(['red \x1b[31mtext\x1b[0m and \x1b[2J'])).not.toContain('\x1b');
  });
});
