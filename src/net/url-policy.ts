import { isIpLiteral, isPublicAddress, rangeOf } from './public-address.ts';

/**
 * Where the downloads of one kind may go. parley fetches a link only because a platform or the gateway
 * named it, so each kind of link is held to the hosts that serve it.
 */
export interface UrlPolicy {
  /** What the links are, in logs: `discord attachment`, `slack file`, `generated image`. */
  readonly purpose: string;
  /**
   * Host patterns a link may name: `cdn.discordapp.com` exactly, or `*.slack.com` for its
   * subdomains. `undefined` allows any host whose addresses are public.
   */
  readonly allowedHosts: readonly string[] | undefined;
  /**
   * Origins the operator configured (`DISCORD_API_URL`, `SLACK_API_URL`, `GATEWAY_BASE_URL`): the
   * platform's own, allowed even on a private address or over http. Matched as scheme, host and
   * port together, so trusting `http://127.0.0.1:8787` trusts no other port of that machine.
   */
  readonly trustedOrigins: readonly string[];
  /** Whether a link outside the trusted origins must be https. */
  readonly requiresHttps: boolean;
}

/**
 * Fetches the model asks for (`read_url`, and the tools to come): public addresses only, over http
 * or https. What a model asks for can be steered by the text it has read (a prompt injection in a
 * search result), so none of the private origins `LINK_PRIVATE_ORIGINS` opens to the links people
 * post are open to it: an intranet page read on the model's word could leave through its next
 * `read_url` (issue 21).
 */
export const modelFetchPolicy: UrlPolicy = Object.freeze({
  purpose: 'model fetch',
  allowedHosts: undefined,
  trustedOrigins: Object.freeze([]),
  requiresHttps: false,
});

/** How a link is fetched, or why it is not. */
export type UrlVerdict =
  | { readonly kind: 'trusted' }
  | { readonly kind: 'guarded' }
  | { readonly kind: 'refused'; readonly reason: RefusalReason; readonly detail: string };

/** Why a link was not fetched. */
export type RefusalReason = 'not-http' | 'not-https' | 'host-not-allowed' | 'private-address';

/** Judges one link (the first, or one a redirect points to) against the policy. */
export function judgeUrl(policy: UrlPolicy, url: URL): UrlVerdict {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { kind: 'refused', reason: 'not-http', detail: `scheme ${url.protocol}` };
  }
  if (policy.trustedOrigins.includes(url.origin)) return { kind: 'trusted' };
  const host = url.hostname.toLowerCase();
  if (isIpLiteral(host) && !isPublicAddress(host)) {
    return { kind: 'refused', reason: 'private-address', detail: `${host} (${rangeOf(host)})` };
  }
  if (policy.requiresHttps && url.protocol !== 'https:') {
    return { kind: 'refused', reason: 'not-https', detail: url.origin };
  }
  if (url.username !== '' || url.password !== '') {
    return { kind: 'refused', reason: 'host-not-allowed', detail: 'credentials in the link' };
  }
  if (policy.allowedHosts && !policy.allowedHosts.some((pattern) => hostMatches(pattern, host))) {
    return { kind: 'refused', reason: 'host-not-allowed', detail: host };
  }
  return { kind: 'guarded' };
}

/** `cdn.discordapp.com` matches itself only; `*.slack.com` matches `files.slack.com`, not `slack.com`. */
export function hostMatches(pattern: string, host: string): boolean {
  const wanted = pattern.toLowerCase().replace(/\.$/, '');
  const actual = host.toLowerCase().replace(/\.$/, '');
  if (wanted.startsWith('*.')) return actual.endsWith(wanted.slice(1)) && actual.length > wanted.length - 1;
  return actual === wanted;
}

/** The origin of a configured URL, for `trustedOrigins`; nothing when it is not a URL. */
export function originsOf(...urls: ReadonlyArray<string | undefined>): string[] {
  return urls.flatMap((value) => {
    if (value === undefined) return [];
    try {
      return [new URL(value).origin];
    } catch {
      return [];
    }
  });
}
