import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One result as SearXNG's JSON answer lists it (the fields parley reads, and a few it does not). */
export interface SearxngResult {
  url: string;
  title: string;
  content: string;
  engine?: string;
}

/**
 * A fake SearXNG instance, per its Search API (docs.searxng.org/dev/search_api.html): `GET /search`
 * (or `/`) with `q` and `format=json` answers `{ query, number_of_results, results: [{ url, title,
 * content, engine, … }], answers, suggestions, infoboxes, unresponsive_engines }`. A format the
 * instance does not serve answers 403, as SearXNG does when `json` is missing from `search.formats`.
 */
export interface FakeSearxng {
  readonly url: string;
  /** The `q` of every search, oldest first. */
  readonly queries: string[];
  /** What a query answers; others get two made-up results quoting the query. */
  setResults(query: string, results: readonly SearxngResult[]): void;
  /** Answer every search with this HTTP status (a 502 from its proxy, say) until reset. */
  failWith(status: number | undefined): void;
  reset(): void;
  close(): Promise<void>;
}

export async function startFakeSearxng(): Promise<FakeSearxng> {
  const resultsByQuery = new Map<string, readonly SearxngResult[]>();
  const queries: string[] = [];
  let failingStatus: number | undefined;
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://fake');
    if (url.pathname !== '/search' && url.pathname !== '/') {
      response.writeHead(404).end();
      return;
    }
    const query = url.searchParams.get('q') ?? '';
    queries.push(query);
    if (failingStatus !== undefined) {
      response.writeHead(failingStatus, { 'content-type': 'text/html' }).end('<h1>Bad Gateway</h1>');
      return;
    }
    if (url.searchParams.get('format') !== 'json') {
      response.writeHead(403, { 'content-type': 'text/html' }).end('<h1>403 Forbidden</h1>');
      return;
    }
    const results = resultsByQuery.get(query) ?? madeUpResults(query);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        query,
        number_of_results: results.length,
        results: results.map((result, index) => ({
          engine: 'duckduckgo',
          engines: ['duckduckgo'],
          positions: [index + 1],
          score: 1 / (index + 1),
          category: 'general',
          ...result,
        })),
        answers: [],
        corrections: [],
        infoboxes: [],
        suggestions: [],
        unresponsive_engines: [],
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    queries,
    setResults: (query, results) => resultsByQuery.set(query, results),
    failWith(status) {
      failingStatus = status;
    },
    reset() {
      resultsByQuery.clear();
      queries.length = 0;
      failingStatus = undefined;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function madeUpResults(query: string): SearxngResult[] {
  const slug = encodeURIComponent(query.toLowerCase().replace(/\s+/g, '-'));
  return [
    { url: `https://example.org/${slug}`, title: `About ${query}`, content: `What is known about ${query}.` },
    { url: `https://example.net/${slug}`, title: `${query}: the details`, content: `More on ${query}.` },
  ];
}
