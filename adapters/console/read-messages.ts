import type { Interface } from 'node:readline';

/** Turns on a terminal's bracketed paste: it then wraps pasted text in ESC[200~ … ESC[201~. */
export const bracketedPasteOn = '\x1b[?2004h';
/** Gives the terminal back as it was: pasted text arrives as if typed. */
export const bracketedPasteOff = '\x1b[?2004l';

/** The prompt while a message goes on over more lines. */
export const continuationPrompt = '… ';

/**
 * Joins the lines a person enters into messages. Lines that arrive inside one paste are one message
 * with the line after them (the last pasted line, or what is typed onto it, ended with Enter); a line
 * that ends with a backslash goes on in the next line, the backslash left out. Everything else is a
 * message of its own line.
 */
export function createMessageJoiner(): {
  /** Adds a line; returns the message it completes, or undefined while the message goes on. */
  add(line: string, { isPasted }: { isPasted: boolean }): string | undefined;
  /** True while lines are held for a message that is not complete yet. */
  isContinuing(): boolean;
} {
  let held: string[] = [];
  return {
    add(line, { isPasted }) {
      if (isPasted) {
        held.push(line);
        return undefined;
      }
      if (line.endsWith('\\')) {
        held.push(line.slice(0, -1));
        return undefined;
      }
      const message = [...held, line].join('\n');
      held = [];
      return message;
    },
    isContinuing: () => held.length > 0,
  };
}

/**
 * The messages typed or piped into `lines`, one at a time, in order; ends when the input does.
 * At a terminal, a paste (which readline alone would split into one line each) is told apart by the
 * bracketed-paste keys readline reports, and continued messages get the `…` prompt.
 */
export async function* readMessages({
  lines,
  input,
  isInteractive,
  prompt,
}: {
  lines: Interface;
  input: NodeJS.ReadableStream;
  isInteractive: boolean;
  /** The prompt for a new message. */
  prompt: string;
}): AsyncGenerator<string> {
  const joiner = createMessageJoiner();
  const ready: string[] = [];
  let isEnded = false;
  let wake: (() => void) | undefined;
  let isPasting = false;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  // Registered after readline's own keypress handling, so a paste's first key is seen before any
  // line it contains; its end comes after the last pasted character.
  const onKeypress = (_text: string | undefined, key: { name?: string } | undefined) => {
    if (key?.name === 'paste-start') isPasting = true;
    else if (key?.name === 'paste-end') isPasting = false;
  };
  const onLine = (line: string) => {
    const message = joiner.add(line, { isPasted: isPasting });
    if (message !== undefined) {
      ready.push(message);
      notify();
    } else if (isInteractive) {
      lines.setPrompt(continuationPrompt);
      // The paste goes on writing the next line itself; a continued line needs its prompt.
      lines.prompt(true);
    }
  };
  const onClose = () => {
    isEnded = true;
    notify();
  };
  if (isInteractive) input.on('keypress', onKeypress);
  lines.on('line', onLine);
  lines.on('close', onClose);
  try {
    for (;;) {
      const message = ready.shift();
      if (message !== undefined) {
        if (isInteractive && !joiner.isContinuing()) lines.setPrompt(prompt);
        yield message;
        continue;
      }
      if (isEnded) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    input.removeListener('keypress', onKeypress);
    lines.removeListener('line', onLine);
    lines.removeListener('close', onClose);
  }
}
