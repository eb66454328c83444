import { recordPlatformRequest } from './metrics.ts';

/** A WHATWG `fetch`, as the Slack Web API client takes one. */
type Fetch = typeof fetch;

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
  return async (input, init) => {
    const response = await innerFetch(input, init);
    const url = typeof input === 'string' || input instanceof URL ? input : input.url;
    recordPlatformRequest({ platform, routeClass: routeClassOf(new URL(url)), status: response.status });
    return response;
  };
}
