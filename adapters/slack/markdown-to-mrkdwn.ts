/**
 * Turns model Markdown into Slack's mrkdwn, for the places that only take mrkdwn: Block Kit sections
 * and fields (cards), context lines, and the notification `text` of a message. Chat replies
 * themselves go out as Markdown (a `markdown` block or a native stream), which Slack renders fully.
 *
 * What changes: `**bold**` → `*bold*`, `*italic*` → `_italic_`, `~~strike~~` → `~strike~`,
 * `[text](url)` → `<url|text>`, headings → bold lines, `- item` → `• item`, tables → a code block so
 * their columns line up. Code blocks keep their content (the language tag goes: Slack would show it
 * as code). `&`, `<` and `>` are escaped everywhere, as Slack requires, so model text can never form
 * a mention or a link by accident.
 */
export function markdownToMrkdwn(markdown: string): string {
  const output: string[] = [];
  const lines = markdown.split('\n');
  let fence: string | undefined;
  let tableLines: string[] = [];
  const flushTable = () => {
    if (tableLines.length === 0) return;
    output.push('```', ...tableLines.map(escapeControlCharacters), '```');
    tableLines = [];
  };
  for (const [index, line] of lines.entries()) {
    const fenceMatch = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence !== undefined) {
      if (fenceMatch?.[1]?.[0] === fence[0] && (fenceMatch?.[1]?.length ?? 0) >= fence.length) {
        fence = undefined;
        output.push('```');
      } else {
        output.push(escapeControlCharacters(line));
      }
      continue;
    }
    if (fenceMatch?.[1] !== undefined) {
      flushTable();
      fence = fenceMatch[1];
      output.push('```');
      continue;
    }
    if (isTableLine(line) && (tableLines.length > 0 || isTableSeparator(lines[index + 1] ?? ''))) {
      tableLines.push(line);
      continue;
    }
    flushTable();
    output.push(convertLine(line));
  }
  flushTable();
  return output.join('\n');
}

/** Escapes the three characters Slack reads as markup: `&`, `<` and `>`. */
export function escapeControlCharacters(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

function isTableLine(line: string): boolean {
  return /^\s*\|.*\|\s*$/.test(line);
}

function isTableSeparator(line: string): boolean {
  return /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/.test(line);
}

function convertLine(line: string): string {
  const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
  if (heading) {
    const content = convertInline(heading[1] ?? '').replace(/^\*(.*)\*$/, '$1');
    return content === '' ? '' : `*${content}*`;
  }
  if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) return '──────────';
  const quote = /^(\s*(?:>\s?)+)(.*)$/.exec(line);
  if (quote) return `${quote[1]?.replace(/\s+/g, '') ?? '>'} ${convertInline(quote[2] ?? '')}`.trimEnd();
  const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(line);
  if (bullet) return `${bullet[1] ?? ''}• ${convertInline(bullet[2] ?? '')}`;
  return convertInline(line);
}

// Placeholders that cannot occur in model text: inline code spans and bold markers wait in them
// while the other rules run, so no rule rewrites what another produced.
const codePlaceholder = '\u0000';
const boldMarker = '\u0001';

function convertInline(text: string): string {
  const codeSpans: string[] = [];
  let converted = text.replace(/(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g, (span) => {
    codeSpans.push(escapeControlCharacters(span));
    return `${codePlaceholder}${codeSpans.length - 1}${codePlaceholder}`;
  });
  converted = escapeControlCharacters(converted)
    .replace(/&lt;((?:https?|mailto):[^\s&]+)&gt;/g, '<$1>')
    .replace(/!\[([^\]]*)\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g, (_whole, alt: string, url: string) =>
      alt === '' ? `<${url}>` : `<${url}|${alt.replaceAll('|', '¦')}>`,
    )
    .replace(
      /\[([^\]]+)\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g,
      (_whole, label: string, url: string) => `<${url}|${label.replaceAll('|', '¦')}>`,
    )
    .replace(/\*\*\*(\S(?:.*?\S)?)\*\*\*/g, `${boldMarker}_$1_${boldMarker}`)
    .replace(/\*\*(\S(?:.*?\S)?)\*\*/g, `${boldMarker}$1${boldMarker}`)
    .replace(/(?<![\w\\])__(\S(?:.*?\S)?)__(?!\w)/g, `${boldMarker}$1${boldMarker}`)
    .replace(/(?<![\w*\\])\*(\S(?:.*?\S)?)\*(?![\w*])/g, '_$1_')
    .replace(/~~(\S(?:.*?\S)?)~~/g, '~$1~')
    .replaceAll(boldMarker, '*');
  return converted.replace(
    new RegExp(`${codePlaceholder}(\\d+)${codePlaceholder}`, 'g'),
    (_whole, index: string) => codeSpans[Number(index)] ?? '',
  );
}
