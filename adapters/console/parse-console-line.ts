/** What one line typed in the terminal asks for. */
export type ConsoleInput =
  | { readonly kind: 'empty' }
  | { readonly kind: 'chat'; readonly text: string }
  | { readonly kind: 'image'; readonly path: string; readonly question: string }
  | { readonly kind: 'file'; readonly path: string; readonly question: string }
  | { readonly kind: 'press'; readonly actionNumber: number }
  | { readonly kind: 'command'; readonly name: string; readonly text: string }
  | { readonly kind: 'exit' }
  | { readonly kind: 'invalid'; readonly message: string };

/**
 * How the terminal works and its own commands; /help adds the shared commands after these. Markdown,
 * as every answer: a person at a terminal sees it rendered.
 */
export const consoleHelp = [
  '**In the terminal** type a message and press Enter to chat. For several lines, end a line with `\\` and go on in the next; a paste of several lines is one message, sent with Enter.',
  '',
  'Terminal only:',
  '```',
  '/image <path> <question>   ask about a local image file (quote a path with spaces)',
  '/file <path> <question>    ask about a local document: PDF, Word, Excel, CSV, text',
  '/press <number>            press a button shown under the last answer, e.g. /press 1',
  '/exit                      leave (Ctrl+D works too; Ctrl+C stops a reply in progress)',
  '```',
  'Image and file options of commands take a path, e.g. `/extract --image ./receipt.png` (`/imagine --reference` needs an image model that takes data: URIs: a file here has no public link).',
].join('\n');

export function parseConsoleLine(line: string): ConsoleInput {
  const trimmed = line.trim();
  if (trimmed === '') return { kind: 'empty' };
  if (!trimmed.startsWith('/')) return { kind: 'chat', text: trimmed };
  const name = (trimmed.split(/\s+/, 1)[0] ?? '').slice(1).toLowerCase();
  const rest = trimmed.slice(name.length + 1).trim();
  switch (name) {
    case 'exit':
    case 'quit':
      return { kind: 'exit' };
    case 'image':
      return parsePathCommand({ kind: 'image', rest });
    case 'file':
      return parsePathCommand({ kind: 'file', rest });
    case 'press': {
      const actionNumber = Number.parseInt(rest, 10);
      return Number.isInteger(actionNumber) && actionNumber > 0
        ? { kind: 'press', actionNumber }
        : { kind: 'invalid', message: 'Usage: /press <number>, e.g. /press 1' };
    }
    default:
      return { kind: 'command', name, text: rest };
  }
}

function parsePathCommand({ kind, rest }: { kind: 'image' | 'file'; rest: string }): ConsoleInput {
  const quoted = /^(["'])(.+?)\1\s*(.*)$/s.exec(rest);
  const [path, question] = quoted ? [quoted[2] ?? '', quoted[3] ?? ''] : splitFirstWord(rest);
  if (path === '') return { kind: 'invalid', message: `Usage: /${kind} <path> <question>` };
  const defaultQuestion = kind === 'image' ? 'What is in this image?' : 'What is in this file?';
  return { kind, path, question: question.trim() === '' ? defaultQuestion : question.trim() };
}

function splitFirstWord(text: string): [string, string] {
  const match = /^(\S+)\s*(.*)$/s.exec(text);
  return [match?.[1] ?? '', match?.[2] ?? ''];
}
