import { UserFacingError } from '../user-facing-error.ts';

/** One web search result, as the model gets it. */
export interface SearchResult {
  readonly title: string;
  readonly url: string;
  /** A few lines of the page, as the search engine quotes it. */
  readonly snippet: string;
}

/**
 * A web search engine behind one small interface (SearXNG today; another provider is one more
 * implementation). Throws `SearchUnavailableError` when the engine cannot answer.
 */
export interface SearchProvider {
  search(request: { query: string; signal?: AbortSignal }): Promise<SearchResult[]>;
}

/** The search engine did not answer, or answered something that is not results. */
export class SearchUnavailableError extends UserFacingError {
  override readonly name = 'SearchUnavailableError';
}
