import { z } from 'zod';
import { readBoundedBody } from '../images/read-bounded-body.ts';
import { guardedFetch } from '../net/guarded-fetch.ts';
import { type SearchProvider, type SearchResult, SearchUnavailableError } from './search-provider.ts';

/**
 * SearXNG's JSON answer (docs.searxng.org/dev/search_api.html: `GET /search?q=…&format=json`, which
 * the instance must allow in `search.formats`); only the fields parley reads are checked.
 */
const searxngAnswerSchema = z.object({
  results: z.array(
    z.object({
      url: z.string(),
      title: z.string().default(''),
      content: z.string().nullish(),
    }),
  ),
});

const maxAnswerBytes = 2 * 1024 * 1024;

/**
 * Searches a SearXNG instance. Its origin is the operator's (often on the same machine or network),
 * so it is trusted like the other configured origins; nothing else is fetched through it.
 */
export function createSearxngProvider({
  baseUrl,
  maxResults,
  timeoutMs,
  userAgent,
}: {
  /** `SEARCH_URL`: the instance's base URL, e.g. `http://localhost:8080`. */
  baseUrl: string;
  maxResults: number;
  timeoutMs: number;
  userAgent: string;
}): SearchProvider {
  const base = new URL(baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  const policy = {
    purpose: 'web search',
    allowedHosts: [base.hostname],
    trustedOrigins: [base.origin],
    requiresHttps: false,
  };
  return {
    async search({ query, signal }) {
      const url = new URL('search', base);
      url.searchParams.set('q', query);
      url.searchParams.set('format', 'json');
      try {
        const { response } = await guardedFetch({
          url: url.href,
          policy,
          timeoutMs,
          headersFor: () => ({ 'user-agent': userAgent, accept: 'application/json' }),
          ...(signal ? { signal } : {}),
        });
        if (!response.ok) {
          await response.body.cancel();
          throw new Error(
            `searxng answered ${response.status}${response.status === 403 ? ' (is json in search.formats?)' : ''}`,
          );
        }
        const body = await readBoundedBody({
          response,
          maxBytes: maxAnswerBytes,
          tooBig: () => new Error('searxng answer too large'),
        });
        const answer = searxngAnswerSchema.parse(JSON.parse(Buffer.from(body).toString('utf8')));
        return answer.results.slice(0, maxResults).map(
          (result): SearchResult => ({
            title: result.title || result.url,
            url: result.url,
            snippet: (result.content ?? '').slice(0, 500),
          }),
        );
      } catch (error) {
        throw new SearchUnavailableError({
          message: `web search failed: ${(error as Error).message}`,
          userMessage: 'The search service did not answer.',
          cause: error,
        });
      }
    },
  };
}
