import robotsParserModule from 'robots-parser';
import type { Logger } from '../log.ts';
import { BlockedUrlError, guardedFetch } from '../net/guarded-fetch.ts';
import type { UrlPolicy } from '../net/url-policy.ts';
import { type UnreachableCause, unreachableCauseOf } from './unreachable-cause.ts';

// The package is CommonJS whose module.exports is the parser itself, while its types declare a default
// export: Node hands the function over as the default import, the types see a namespace.
const robotsParser = robotsParserModule as unknown as (
  url: string,
  text: string,
) => { isAllowed(url: string, userAgent?: string): boolean | undefined };

/** How long a site's robots.txt is trusted before it is asked again (RFC 9309, 2.4: at most 24 h). */
const cacheLifetimeMs = 60 * 60 * 1000;
const maxCachedSites = 500;
/** RFC 9309, 2.5: crawlers must read at least 500 KiB of a robots.txt. */
const maxRobotsBytes = 512 * 1024;

/**
 * Whether a link may be fetched, and if not, why: the site's rules forbid it, or its robots.txt
 * could not be had (the site unreachable, or answering with a server error), which RFC 9309 counts
 * as "disallow everything" but a person reads as the site's problem, not its rules.
 */
export type RobotsVerdict =
  | { readonly kind: 'allowed' }
  | { readonly kind: 'disallowed' }
  | { readonly kind: 'unreachable'; readonly cause: UnreachableCause | undefined }
  | { readonly kind: 'server-error'; readonly status: number };

export interface RobotsRules {
  /** Whether the site allows `userAgent` to fetch `url`, or why not. */
  verdictFor(url: URL): Promise<RobotsVerdict>;
}

const allowed: RobotsVerdict = { kind: 'allowed' };
const disallowed: RobotsVerdict = { kind: 'disallowed' };

/**
 * robots.txt, per RFC 9309: fetched once an hour per site through the guarded fetch; a missing
 * robots.txt (4xx, 2.3.1.3) allows everything, an unreachable one (5xx or no answer, 2.3.1.4)
 * allows nothing.
 */
export function createRobotsRules({
  userAgent,
  policy,
  timeoutMs,
  logger,
}: {
  userAgent: string;
  policy: UrlPolicy;
  timeoutMs: number;
  logger: Logger;
}): RobotsRules {
  const cache = new Map<string, { fetchedAtMs: number; rules: Promise<(url: string) => RobotsVerdict> }>();
  const rulesOf = (origin: string) => {
    const cached = cache.get(origin);
    if (cached && cached.fetchedAtMs + cacheLifetimeMs > Date.now()) return cached.rules;
    const rules = fetchRules({ origin, userAgent, policy, timeoutMs, logger });
    cache.delete(origin);
    cache.set(origin, { fetchedAtMs: Date.now(), rules });
    if (cache.size > maxCachedSites) cache.delete(cache.keys().next().value ?? '');
    return rules;
  };
  return {
    async verdictFor(url) {
      return (await rulesOf(url.origin))(url.href);
    },
  };
}

async function fetchRules({
  origin,
  userAgent,
  policy,
  timeoutMs,
  logger,
}: {
  origin: string;
  userAgent: string;
  policy: UrlPolicy;
  timeoutMs: number;
  logger: Logger;
}): Promise<(url: string) => RobotsVerdict> {
  const robotsUrl = `${origin}/robots.txt`;
  try {
    const { response } = await guardedFetch({
      url: robotsUrl,
      policy,
      timeoutMs,
      maxRedirects: 5,
      headersFor: () => ({ 'user-agent': userAgent }),
    });
    if (response.status >= 400 && response.status < 500) {
      await response.body.cancel();
      return () => allowed;
    }
    if (!response.ok) {
      await response.body.cancel();
      const verdict: RobotsVerdict = { kind: 'server-error', status: response.status };
      return () => verdict;
    }
    const text = await readText(response.body, maxRobotsBytes);
    const robots = robotsParser(robotsUrl, text);
    return (url) => (robots.isAllowed(url, userAgent) === false ? disallowed : allowed);
  } catch (error) {
    // A refused address is the link's problem, said as such, not the site's robots.txt.
    if (error instanceof BlockedUrlError) throw error;
    logger.info({ err: error, origin }, 'robots.txt unreachable; not fetching from the site');
    const verdict: RobotsVerdict = { kind: 'unreachable', cause: unreachableCauseOf(error) };
    return () => verdict;
  }
}

async function readText(
  body: AsyncIterable<Uint8Array> & { cancel(): Promise<void> },
  maxBytes: number,
): Promise<string> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    total += chunk.length;
    if (total >= maxBytes) {
      await body.cancel();
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8');
}
