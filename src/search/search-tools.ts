import { z } from 'zod';
import type { ToolCall, ToolDefinition } from '../gateway/chat-types.ts';
import type { Logger } from '../log.ts';
import { renderNotice } from '../notices/render-notice.ts';
import { type SearchProvider, SearchUnavailableError } from './search-provider.ts';
import type { Sources } from './sources.ts';

/** Reads a link for `read_url`: the page's title and text, or why it could not be read. */
export type ReadPage = (request: {
  url: string;
  signal?: AbortSignal;
}) => Promise<{ title: string; text: string } | { problem: string }>;

export const webSearchTool: ToolDefinition = {
  name: 'web_search',
  description:
    'Search the web. Use it for current events, facts you are unsure of, prices, schedules, and anything after your training. Returns numbered results with links.',
  parameters: {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'What to search for, as you would type it into a search engine' },
    },
    required: ['query'],
    additionalProperties: false,
  },
};

export const readUrlTool: ToolDefinition = {
  name: 'read_url',
  description:
    'Read a web page (one of the search results, or a link from the conversation) to answer from its text.',
  parameters: {
    type: 'object',
    properties: { url: { type: 'string', description: 'The http(s) link to read' } },
    required: ['url'],
    additionalProperties: false,
  },
};

/** Said in the system prompt whenever search is possible, so answers cite the numbered results. */
export const searchInstructions =
  'Web search results are numbered [1], [2], …; when you use one, cite it by its number in square brackets right after the claim, e.g. "High tide is at 14:05 [2]." Cite only numbers you were given.';

/** What a tool call does meanwhile, for the status line. */
export function statusOf(call: ToolCall): string {
  const args = argumentsOf(call);
  if (call.name === 'web_search') return `🔎 searching: ${String(args.query ?? '').slice(0, 80)}`;
  if (call.name === 'read_url') return `📖 reading: ${hostOf(String(args.url ?? ''))}`;
  return `⚙ ${call.name}`;
}

/** Runs one tool call; the result is the text of the `tool` message that answers it. */
export async function runToolCall({
  call,
  provider,
  readPage,
  sources,
  notices,
  signal,
  logger,
}: {
  call: ToolCall;
  provider: SearchProvider;
  readPage: ReadPage;
  sources: Sources;
  /** What the person should be told (search down, say), collected for the reply's notes. */
  notices: string[];
  signal?: AbortSignal | undefined;
  logger: Logger;
}): Promise<string> {
  const args = argumentsOf(call);
  if (call.name === 'web_search' && typeof args.query === 'string' && args.query.trim() !== '') {
    return searchAndNumber({ query: args.query, provider, sources, notices, signal, logger });
  }
  if (call.name === 'read_url' && typeof args.url === 'string') {
    const page = await readPage({ url: args.url, ...(signal ? { signal } : {}) });
    if ('problem' in page) return `Could not read the page: ${page.problem}`;
    const source = sources.add({ title: page.title, url: args.url });
    return `[${source.number}] ${page.title}\n${args.url}\n\n${page.text}`;
  }
  logger.warn({ tool: call.name }, 'model called an unknown tool or gave bad arguments');
  return `Unknown tool or invalid arguments: ${call.name} takes ${call.name === 'read_url' ? '{"url": "…"}' : '{"query": "…"}'}.`;
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

const argumentsSchema = z.record(z.string(), z.unknown());

// The model's arguments are its own JSON text: never trusted to parse, nor to have the right fields.
function argumentsOf(call: ToolCall): Record<string, unknown> {
  try {
    const parsed = argumentsSchema.safeParse(JSON.parse(call.arguments || '{}'));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url.slice(0, 60);
  }
}
