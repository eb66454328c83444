/** What one line typed in the terminal asks for. */
export type ConsoleInput =
  | { readonly kind: 'empty' }
  | { readonly kind: 'chat'; readonly text: string }
  | { readonly kind: 'image'; readonly path: string; readonly question: string }
  | { readonly kind: 'imagine'; readonly prompt: string }
  | { readonly kind: 'reset' }
  | { readonly kind: 'help' }
  | { readonly kind: 'exit' }
  | { readonly kind: 'invalid'; readonly message: string };

export const consoleHelp = [
  'Type a message to chat. Commands:',
  '  /image <path> <question>   ask about a local image file (quote a path with spaces)',
  '  /imagine <prompt>          draw an image; files are saved under the output folder',
  '  /reset                     forget this conversation',
  '  /help                      this list',
  '  /exit                      leave (Ctrl+D works too; Ctrl+C stops a reply in progress)',
].join('\n');

export function parseConsoleLine(line: string): ConsoleInput {
  const trimmed = line.trim();
  if (trimmed === '') return { kind: 'empty' };
  if (!trimmed.startsWith('/')) return { kind: 'chat', text: trimmed };
  const command = trimmed.split(/\s+/, 1)[0] ?? '';
  const rest = trimmed.slice(command.length).trim();
  switch (command.toLowerCase()) {
    case '/exit':
    case '/quit':
      return { kind: 'exit' };
    case '/help':
      return { kind: 'help' };
    case '/reset':
      return { kind: 'reset' };
    case '/imagine':
      return rest === ''
        ? { kind: 'invalid', message: 'Usage: /imagine <prompt>' }
        : { kind: 'imagine', prompt: rest };
    case '/image':
      return parseImageCommand(rest);
    default:
      return { kind: 'invalid', message: `Unknown command ${command}. Type /help for the list.` };
  }
}

function parseImageCommand(rest: string): ConsoleInput {
  const quoted = /^(["'])(.+?)\1\s*(.*)$/s.exec(rest);
  const [path, question] = quoted ? [quoted[2] ?? '', quoted[3] ?? ''] : splitFirstWord(rest);
  if (path === '') return { kind: 'invalid', message: 'Usage: /image <path> <question>' };
  return {
    kind: 'image',
    path,
    question: question.trim() === '' ? 'What is in this image?' : question.trim(),
  };
}

function splitFirstWord(text: string): [string, string] {
  const match = /^(\S+)\s*(.*)$/s.exec(text);
  return [match?.[1] ?? '', match?.[2] ?? ''];
}
