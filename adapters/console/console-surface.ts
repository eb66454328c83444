import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Action } from '../../src/delivery/card.ts';
import type { OutgoingFile, PostedMessage, Surface } from '../../src/delivery/surface.ts';
import type { ToolStep } from '../../src/gateway/chat-types.ts';

/** The terminal as a Surface, plus `flush()` to print what was held back once the reply is over. */
export interface ConsoleSurface extends Surface {
  upload(files: readonly OutgoingFile[], text?: string): Promise<PostedMessage>;
  flush(): void;
}

// While a reply streams, delivery closes an open code block at the end of each edit so it renders;
// the next edit then carries the code on past that point. A terminal cannot take text back, so the
// closing fence line at the very end of a text is held back until more text follows or the reply ends.
const trailingFenceLine = /\n[ \t]*(```|~~~)[ \t]*$/;

/**
 * A terminal cannot rewrite what it printed, but delivery only ever grows a message, so an edit
 * prints what is new. An edit that changes text already printed reprints the message below.
 */
export function createConsoleSurface({
  write,
  outputDirectory,
  onActions,
  isInteractive = false,
}: {
  write: (text: string) => void;
  outputDirectory: string;
  /** Buttons a terminal cannot draw: the adapter lists them after the answer for /press. */
  onActions?: (actions: readonly Action[]) => void;
  /** A person watches a terminal: tool steps are dimmed there, and plain when the output is piped. */
  isInteractive?: boolean;
}): ConsoleSurface {
  let messageCount = 0;
  let current: { id: string; printed: string; latest: string } | undefined;

  const print = (messageId: string, text: string, { isFinal }: { isFinal: boolean }) => {
    const printable = isFinal ? text : text.replace(trailingFenceLine, '');
    if (current?.id === messageId && printable.startsWith(current.printed)) {
      write(printable.slice(current.printed.length));
    } else {
      write(`${current === undefined ? '' : '\n'}${printable}`);
    }
    current = { id: messageId, printed: printable, latest: text };
  };

  const flush = () => {
    if (current && current.latest !== current.printed) print(current.id, current.latest, { isFinal: true });
  };

  return {
    // Nothing on a terminal limits length or edits; rollover and throttling would only slow it down.
    limits: { maxMessageLength: 1_000_000, minEditIntervalMs: 0 },
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
      print(message.id, [text, ...paths.map((path) => `saved ${path}`)].filter(Boolean).join('\n'), {
        isFinal: true,
      });
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
