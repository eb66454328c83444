import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Action } from '../../src/delivery/card.ts';
import type { OutgoingFile, PostedMessage, Surface } from '../../src/delivery/surface.ts';
import type { ToolStep } from '../../src/gateway/chat-types.ts';
import { createMarkdownPrinter, type MarkdownPrinter, type MarkdownTerminal } from './markdown-printer.ts';

/** The terminal as a Surface, plus `flush()` to print what was held back once the reply is over. */
export interface ConsoleSurface extends Surface {
  upload(files: readonly OutgoingFile[], text?: string): Promise<PostedMessage>;
  flush(): void;
}

// While a reply streams, delivery closes an open code block at the end of each edit so it renders;
// the next edit then carries the code on past that point. A terminal cannot take text back, so the
// closing fence line at the very end of a text is held back until more text follows or the reply ends.
const trailingFenceLine = /\n[ \t]*(```|~~~)[ \t]*$/;

interface PrintedMessage {
  readonly id: string;
  /** What is on screen (or being drawn) of it: its text less a held-back closing fence. */
  printed: string;
  /** Its whole text as delivery last gave it. */
  latest: string;
  /** Draws it as rendered Markdown; without one it is printed as written. */
  readonly printer: MarkdownPrinter | undefined;
  /** Its last text is shown: a rendered message takes no more text in place. */
  isEnded: boolean;
}

/**
 * A terminal cannot rewrite what scrolled by, but delivery only ever grows a message, so an edit
 * prints what is new. An edit that changes text already printed reprints the message below.
 * With `markdown` (a person at a terminal) messages are printed rendered, see createMarkdownPrinter;
 * without it (piped output) as the Markdown the model wrote.
 */
export function createConsoleSurface({
  write,
  outputDirectory,
  onActions,
  isInteractive = false,
  markdown,
}: {
  write: (text: string) => void;
  outputDirectory: string;
  /** Buttons a terminal cannot draw: the adapter lists them after the answer for /press. */
  onActions?: (actions: readonly Action[]) => void;
  /** A person watches a terminal: tool steps are dimmed there, and plain when the output is piped. */
  isInteractive?: boolean;
  markdown?: Omit<MarkdownTerminal, 'write'>;
}): ConsoleSurface {
  let messageCount = 0;
  let current: PrintedMessage | undefined;

  // Shows the message's new text in place, or says it cannot (then it is printed again below).
  const extend = (message: PrintedMessage, printable: string, isFinal: boolean): boolean => {
    if (message.printer) {
      if (message.isEnded) return false;
      return isFinal ? message.printer.end(printable) : message.printer.show(printable);
    }
    if (!printable.startsWith(message.printed)) return false;
    write(printable.slice(message.printed.length));
    return true;
  };

  const print = (messageId: string, text: string, { isFinal }: { isFinal: boolean }) => {
    const printable = isFinal ? text : text.replace(trailingFenceLine, '');
    if (current?.id === messageId && extend(current, printable, isFinal)) {
      current.printed = printable;
      current.latest = text;
      current.isEnded ||= isFinal;
      return;
    }
    // The message before is over: what it held back (a closing fence) is final now.
    if (current?.printer && !current.isEnded) current.printer.end(current.latest);
    if (current !== undefined) write('\n');
    const printer = markdown ? createMarkdownPrinter({ ...markdown, write }) : undefined;
    if (!printer) write(printable);
    else if (isFinal) printer.end(printable);
    else printer.show(printable);
    current = { id: messageId, printed: printable, latest: text, printer, isEnded: isFinal };
  };

  const flush = () => {
    if (current && (current.latest !== current.printed || (current.printer && !current.isEnded))) {
      print(current.id, current.latest, { isFinal: true });
    }
  };

  return {
    // Nothing on a terminal limits length or edits; rollover would only cut a reply. Printed as
    // written, each piece of text is printed as it comes; rendered, the block being written is
    // drawn again with each edit, and 20 a second looks as smooth at a fraction of the work.
    limits: { maxMessageLength: 1_000_000, minEditIntervalMs: markdown ? 50 : 0 },
    async post(text) {
      messageCount += 1;
      const message: PostedMessage = { id: String(messageCount) };
      print(message.id, text, { isFinal: false });
      return message;
    },
    async edit(message, text, options) {
      print(message.id, text, { isFinal: false });
      // The reply's buttons come with its last write, so whatever was held back is final now.
      if (options?.actions !== undefined && options.isFinal) {
        flush();
        onActions?.(options.actions);
      }
    },
    async upload(files: readonly OutgoingFile[], text?: string) {
      await mkdir(outputDirectory, { recursive: true });
      const paths: string[] = [];
      for (const file of files) paths.push(resolve(await writeNewFile(outputDirectory, file)));
      messageCount += 1;
      const message: PostedMessage = { id: String(messageCount) };
      // Rendered, a path is code: a name like my__file__.png must not turn bold.
      const saved = paths.map((path) =>
        markdown && !path.includes('`') ? `saved \`${path}\`` : `saved ${path}`,
      );
      print(message.id, [text, ...saved].filter(Boolean).join('\n'), { isFinal: true });
      return message;
    },
    // Each step on a line of its own, dimmed, where the reply has got to.
    async showToolStep(step) {
      const line = stepLineOf(step);
      const atLineStart = current === undefined || current.printed === '' || current.printed.endsWith('\n');
      write(`${atLineStart ? '' : '\n'}${isInteractive ? `\x1b[2m${line}\x1b[22m` : line}\n`);
      // A message printed so far simply continues below the step: what it prints next is what is new.
      return 'shown';
    },
    // The terminal is one person's: a private notice is simply another line.
    async postPrivately(text: string) {
      messageCount += 1;
      print(String(messageCount), text, { isFinal: true });
    },
    ...(onActions
      ? {
          async setActions(_message: PostedMessage, actions: readonly Action[]) {
            // Buttons come after the reply is complete, so whatever was held back is final now.
            flush();
            onActions(actions);
          },
        }
      : {}),
    flush,
  };
}

// Regenerate and a second /extract reuse names; a terminal keeps every result, so a taken name gets
// a counter rather than overwriting the earlier file.
async function writeNewFile(directory: string, file: OutgoingFile): Promise<string> {
  const dot = file.name.lastIndexOf('.');
  const [stem, extension] = dot > 0 ? [file.name.slice(0, dot), file.name.slice(dot)] : [file.name, ''];
  for (let attempt = 1; ; attempt += 1) {
    const path = join(directory, attempt === 1 ? file.name : `${stem}-${attempt}${extension}`);
    try {
      await writeFile(path, file.bytes, { flag: 'wx' });
      return path;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/** "· 🔎 searching: tides Brest", "✓ 🔎 searching: tides Brest", "✗ ⚙ write: denied by Ada". */
function stepLineOf(step: ToolStep): string {
  const detail = step.detail === undefined ? '' : `: ${step.detail}`;
  switch (step.status) {
    case 'waiting':
      return `⏳ ${step.title}${detail}`;
    case 'running':
      return `· ${step.title}`;
    case 'complete':
      return `✓ ${step.title}`;
    case 'error':
      return `✗ ${step.title}${detail}`;
    case 'not-run':
      return `⊘ ${step.title}${detail}`;
  }
}
