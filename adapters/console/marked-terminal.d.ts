// marked-terminal ships no types, and @types/marked-terminal pins a marked older than the one used
// here; this is the one function parley calls.
declare module 'marked-terminal' {
  import type { MarkedExtension } from 'marked';

  export interface TerminalRendererOptions {
    /** Columns for rules and, with `reflowText`, for wrapping. */
    width?: number;
    /** Rewrap paragraphs to `width`. */
    reflowText?: boolean;
    /** Spaces (or the string) a list or code block is indented by. */
    tab?: number | string;
    [option: string]: unknown;
  }

  export function markedTerminal(
    options?: TerminalRendererOptions,
    highlightOptions?: Record<string, unknown>,
  ): MarkedExtension;
}
