/**
 * The web links in a message, in order, each once: `http(s)://…` up to a space or a closing bracket,
 * without the punctuation that ends a sentence ("see https://example.com/a.").
 */
export function findLinks(text: string, maxCount: number): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/https?:\/\/[^\s<>"'`|]+/gi)) {
    const link = trimTrailing(match[0]);
    if (!isParsable(link) || found.includes(link)) continue;
    found.push(link);
    if (found.length === maxCount) break;
  }
  return found;
}

// A closing bracket ends the link unless the link opened one itself (Wikipedia's "Foo_(bar)").
function trimTrailing(link: string): string {
  let trimmed = link.replace(/[.,;:!?*_~]+$/, '');
  while (/[)\]}]$/.test(trimmed)) {
    const closer = trimmed.at(-1) ?? '';
    const opener = { ')': '(', ']': '[', '}': '{' }[closer] ?? '';
    if (trimmed.split(opener).length >= trimmed.split(closer).length) break;
    trimmed = trimmed.slice(0, -1).replace(/[.,;:!?*_~]+$/, '');
  }
  return trimmed;
}

function isParsable(link: string): boolean {
  try {
    return new URL(link).hostname !== '';
  } catch {
    return false;
  }
}
