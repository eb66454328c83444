import type { Logger } from '../log.ts';
import { renderNotice } from '../notices/render-notice.ts';
import type { Tool } from '../tools/tool.ts';
import { type SearchProvider, SearchUnavailableError } from './search-provider.ts';
import type { Sources } from './sources.ts';

/** Reads a link for `read_url`: the page's title and text, or why it could not be read. */
export type ReadPage = (request: {
  url: string;
  signal?: AbortSignal;
}) => Promise<{ title: string; text: string } | { problem: string }>;

/** Said in the system prompt whenever search is possible, so answers cite the numbered results. */
export const searchInstructions =
  'Web search results are numbered [1], [2], …; when you use one, cite it by its number in square brackets right after the claim, e.g. "High tide is at 14:05 [2]." Cite only numbers you were given.';

/** How much of a page or a result list the model gets from one call. */
const maxResultCharacters = 40_000;

/**
 * `web_search` and `read_url` as built-in tools: read-only, open-world, free beyond the tokens
 * their results add to the next round (which the reply's hold covers when that round is sent).
 */
export function createSearchTools({
  provider,
  readPage,
  deadlineMs,
}: {
  provider: SearchProvider;
  readPage: ReadPage;
  /** The longest one call may take: the search's own timeout, or a page read's. */
  deadlineMs: number;
}): Tool[] {
  const common = {
    annotations: { isReadOnly: true, isDestructive: false, isOpenWorld: true },
    source: 'built-in',
    priceNanos: 0,
    deadlineMs,
    maxResultCharacters,
  };
  const webSearch: Tool = {
    ...common,
    name: 'web_search',
    title: 'Web search',
    description:
      'Search the web. Use it for current events, facts you are unsure of, prices, schedules, and anything after your training. Returns numbered results with links.',
    inputSchema: {
      type: 'object',
      properties: {
        query: {
          type: 'string',
          description: 'What to search for, as you would type it into a search engine',
        },
      },
      required: ['query'],
      additionalProperties: false,
    },
    describeCall: (toolArguments) => `🔎 searching: ${String(toolArguments.query ?? '').slice(0, 80)}`,
    async run({ arguments: toolArguments, context }) {
      const query = typeof toolArguments.query === 'string' ? toolArguments.query.trim() : '';
      if (query === '') return { text: 'web_search takes {"query": "…"}.', isError: true };
      // The results this search found, for its step (a link found before keeps its first number).
      const found: { title: string; url: string }[] = [];
      const recording: Sources = {
        add(page) {
          const source = context.sources.add(page);
          found.push({ title: source.title, url: source.url });
          return source;
        },
        get all() {
          return context.sources.all;
        },
      };
      const text = await searchAndNumber({ query, provider, ...context, sources: recording });
      return { text, sources: found };
    },
  };
  const readUrl: Tool = {
    ...common,
    name: 'read_url',
    title: 'Read a page',
    description:
      'Read a web page (one of the search results, or a link from the conversation) to answer from its text.',
    inputSchema: {
      type: 'object',
      properties: { url: { type: 'string', description: 'The http(s) link to read' } },
      required: ['url'],
      additionalProperties: false,
    },
    describeCall: (toolArguments) => `📖 reading: ${hostOf(String(toolArguments.url ?? ''))}`,
    async run({ arguments: toolArguments, context }) {
      if (typeof toolArguments.url !== 'string')
        return { text: 'read_url takes {"url": "…"}.', isError: true };
      const page = await readPage({ url: toolArguments.url, signal: context.signal });
      if ('problem' in page) return { text: `Could not read the page: ${page.problem}`, isError: true };
      const source = context.sources.add({ title: page.title, url: toolArguments.url });
      return {
        text: `[${source.number}] ${page.title}\n${toolArguments.url}\n\n${page.text}`,
        sources: [{ title: page.title, url: toolArguments.url }],
      };
    },
  };
  return [webSearch, readUrl];
}

/** Searches and numbers the results into the turn's sources; the text lists them for the model. */
export async function searchAndNumber({
  query,
  provider,
  sources,
  notices,
  signal,
  logger,
}: {
  query: string;
  provider: SearchProvider;
  sources: Sources;
  notices: string[];
  signal?: AbortSignal | undefined;
  logger: Logger;
}): Promise<string> {
  try {
    const results = await provider.search({ query, ...(signal ? { signal } : {}) });
    logger.info({ resultCount: results.length }, 'web search');
    if (results.length === 0) return `No results for "${query}".`;
    return results
      .map((result) => {
        const source = sources.add({ title: result.title, url: result.url });
        return `[${source.number}] ${result.title}\n${result.url}\n${result.snippet}`;
      })
      .join('\n\n');
  } catch (error) {
    if (!(error instanceof SearchUnavailableError)) throw error;
    logger.warn({ err: error }, 'web search unavailable');
    if (!notices.includes(unavailableNotice)) notices.push(unavailableNotice);
    return 'Web search is unavailable right now. Answer from what you know, and say that you could not search.';
  }
}

const unavailableNotice = renderNotice({ type: 'search-unavailable' });

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url.slice(0, 60);
  }
}
