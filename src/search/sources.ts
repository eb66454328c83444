/** A page a reply may cite, numbered in the order it was found. */
export interface Source {
  readonly number: number;
  readonly title: string;
  readonly url: string;
}

/** The sources found while answering one turn, each numbered once. */
export interface Sources {
  /** Numbers the page (or returns the number it already has). */
  add(page: { title: string; url: string }): Source;
  readonly all: readonly Source[];
}

export function createSources(): Sources {
  const all: Source[] = [];
  return {
    add(page) {
      const known = all.find((source) => source.url === page.url);
      if (known) return known;
      const source = { number: all.length + 1, title: page.title, url: page.url };
      all.push(source);
      return source;
    },
    all,
  };
}

/**
 * The list under a reply: the sources the text cites as `[n]`, or every source when it cites none,
 * as numbered Markdown links. Empty when nothing was found.
 */
export function renderSources(sources: readonly Source[], replyText: string): string {
  if (sources.length === 0) return '';
  const cited = new Set([...replyText.matchAll(/\[(\d{1,2})\]/g)].map((match) => Number(match[1])));
  const shown = sources.some((source) => cited.has(source.number))
    ? sources.filter((source) => cited.has(source.number))
    : sources;
  const lines = shown.map(
    (source) => `${source.number}. [${escapeLinkText(source.title)}](${escapeDestination(source.url)})`,
  );
  return `\n\n**Sources**\n${lines.join('\n')}`;
}

function escapeLinkText(title: string): string {
  const clean = title.replace(/[[\]\r\n]+/g, ' ').trim();
  return clean.length > 100 ? `${clean.slice(0, 99)}…` : clean;
}

// A plain Markdown link destination ends at a space or an unmatched parenthesis: encode them.
function escapeDestination(url: string): string {
  return url.replaceAll(' ', '%20').replaceAll('(', '%28').replaceAll(')', '%29');
}
