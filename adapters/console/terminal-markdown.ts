import { Marked } from 'marked';
import { markedTerminal } from 'marked-terminal';

/** Turns Markdown into text for a terminal: bold, italics, code, lists, tables, headings. */
export type RenderMarkdown = (markdown: string) => string;

/**
 * Markdown for a terminal through marked and marked-terminal. Colours follow chalk's reading of the
 * terminal (none when standard output is not one, or with NO_COLOR). Control characters in the text
 * (an escape sequence the model wrote) are removed by marked-terminal, so a reply cannot move the
 * cursor or recolour the terminal.
 */
export function createTerminalMarkdown({ width }: { width: number }): RenderMarkdown {
  const marked = new Marked(
    // Lines are kept as the model wrote them: the terminal wraps long ones itself.
    markedTerminal({ width, reflowText: false, tab: 2 }),
    {
      renderer: {
        // marked-terminal 7 prints a tight list item's text without its inline formatting
        // (`**bold**` stays as typed, marked-terminal issues 304 and 371): the item's text token
        // carries the inline tokens, so they are rendered here; other text falls through to it.
        text(token) {
          return 'tokens' in token && token.tokens ? this.parser.parseInline(token.tokens) : false;
        },
        // marked-terminal adds the task box itself, so the parser's own box would make it twice.
        checkbox() {
          return '';
        },
      },
    },
  );
  return (markdown) => marked.parse(markdown, { async: false });
}
