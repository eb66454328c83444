/**
 * Independent checks on Markdown the delivery tests produce, deliberately simpler than the code under
 * test: the generated inputs only use fence lines of the form ```lang / ``` (or ~~~), never indented
 * inside a block, so toggling on every fence line is enough.
 */
export function hasBalancedFences(text: string): boolean {
  let openMarker: string | null = null;
  for (const line of text.split('\n')) {
    const match = /^\s*(`{3,}|~{3,})(.*)$/.exec(line);
    const marker = match?.[1];
    if (marker === undefined) continue;
    if (openMarker === null) openMarker = marker;
    else if (marker.startsWith(openMarker) && (match?.[2] ?? '').trim() === '') openMarker = null;
  }
  return openMarker === null;
}

/** Whether `index` falls inside a word, i.e. between two non-whitespace characters. */
export function isInsideWord(text: string, index: number): boolean {
  return /\S/.test(text[index - 1] ?? ' ') && /\S/.test(text[index] ?? ' ');
}

/** The length of the run of non-whitespace characters around `index`. */
export function wordLengthAround(text: string, index: number): number {
  let start = index;
  while (start > 0 && /\S/.test(text[start - 1] ?? ' ')) start -= 1;
  let end = index;
  while (end < text.length && /\S/.test(text[end] ?? ' ')) end += 1;
  return end - start;
}

/**
 * Recovers each message's slice of the source text from the messages a writer left, removing what
 * the splitter adds at a cut inside a code block: "```" or "\n```" at the end of a message and
 * "```lang\n" at the start of the next. Assumes, as the tests' inputs guarantee, that no source line
 * ends in a space, no word is longer than a message and the source does not end in a fence line: then
 * a message other than the last that ends in a fence marker was closed by the splitter, and a "\n"
 * before that marker right after a space was added too.
 */
export function sourceBodies(messageTexts: readonly string[]): string[] {
  let isReopened = false;
  return messageTexts.map((message, index) => {
    let body = message;
    if (isReopened) body = body.replace(/^(`{3,}|~{3,})[^\n]*\n/, '');
    const closing = index < messageTexts.length - 1 ? /(`{3,}|~{3,})$/.exec(body) : null;
    isReopened = closing !== null;
    if (closing !== null) {
      body = body.slice(0, closing.index);
      if (/[ \t]\n$/.test(body)) body = body.slice(0, -1);
    }
    return body;
  });
}
