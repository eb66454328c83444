import { recordPlatformRequest } from './metrics.ts';

/** A WHATWG `fetch`, as the Slack Web API client takes one. */
type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * A fetch that counts each platform call and each 429 into `parley_platform_requests_total` and
 * `parley_platform_rate_limited_total`, by the route class `routeClassOf` gives the URL (keep it to
 * a handful of values: never an id or a token from the path).
 */
export function countPlatformRequests({
  platform,
  routeClassOf,
  fetch: innerFetch = globalThis.fetch,
}: {
  platform: string;
  routeClassOf: (url: URL) => string;
  fetch?: Fetch;
}): Fetch {
  return async (url, init) => {
    const response = await innerFetch(url, init);
    recordPlatformRequest({ platform, routeClass: routeClassOf(new URL(url)), status: response.status });
    return response;
  };
}
