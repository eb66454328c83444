import type { DocumentAttachment, ImageAttachment, IncomingTurn } from '../conversation/turn.ts';
import type { LinkFindings } from '../documents/turn-documents.ts';
import type { Logger } from '../log.ts';
import { BlockedUrlError, describeRefusal, guardedFetch } from '../net/guarded-fetch.ts';
import type { UrlPolicy } from '../net/url-policy.ts';
import { renderNotice } from '../notices/render-notice.ts';
import { findLinks } from './find-links.ts';
import { createRobotsRules, type RobotsRules, type RobotsVerdict } from './robots-rules.ts';
import { unreachableCauseOf } from './unreachable-cause.ts';

/** When links in a message are read: always, never, or only in messages addressed to the bot. */
export type LinkReadingMode = 'on' | 'off' | 'mention-only';

export interface LinkReaderOptions {
  readonly mode: LinkReadingMode;
  /** Links read from one message at most. */
  readonly maxLinks: number;
  /** Bytes read of one link at most; a longer web page is read up to here, with a note. */
  readonly maxBytes: number;
  /** The whole fetch of one link. */
  readonly timeoutMs: number;
  /** Sent with every request, so sites can tell parley and set robots.txt rules for it. */
  readonly userAgent: string;
  /** Origins on a private network links may point to (an intranet wiki): `LINK_PRIVATE_ORIGINS`. */
  readonly privateOrigins: readonly string[];
  readonly logger: Logger;
}

/** Reads one link for a tool or a command; `readLinks` reads those in a message. */
export interface LinkReader {
  readLinks(request: { turn: IncomingTurn; signal?: AbortSignal }): Promise<LinkFindings>;
  /**
   * `policy`: where this link may lead, when not where people's links may (the model's own fetches
   * go by `modelFetchPolicy`).
   */
  readLink(request: { url: string; signal?: AbortSignal; policy?: UrlPolicy }): Promise<LinkFinding>;
}

/** What one link led to: a document (a web page, a PDF…), an image, or why it was not read. */
export type LinkFinding =
  | { readonly kind: 'document'; readonly document: DocumentAttachment; readonly notice?: string }
  | { readonly kind: 'image'; readonly image: ImageAttachment }
  | { readonly kind: 'refused'; readonly notice: string };

/** Where links may lead: any public address, http or https; private ones only when configured. */
export function linkPolicy(privateOrigins: readonly string[]): UrlPolicy {
  return { purpose: 'link', allowedHosts: undefined, trustedOrigins: privateOrigins, requiresHttps: false };
}

export function createLinkReader(options: LinkReaderOptions): LinkReader {
  const peoplesPolicy = linkPolicy(options.privateOrigins);
  // One robots.txt cache per policy: a robots.txt refused under one policy is not refused under another.
  const robotsByPolicy = new Map<UrlPolicy, RobotsRules>();
  const robotsFor = (policy: UrlPolicy) => {
    let robots = robotsByPolicy.get(policy);
    if (!robots) {
      robots = createRobotsRules({
        userAgent: options.userAgent,
        policy,
        timeoutMs: Math.min(options.timeoutMs, 5_000),
        logger: options.logger,
      });
      robotsByPolicy.set(policy, robots);
    }
    return robots;
  };
  const readLink: LinkReader['readLink'] = ({ url, signal, policy = peoplesPolicy }) =>
    fetchLink({ url, options, policy, robots: robotsFor(policy), ...(signal ? { signal } : {}) });
  return {
    readLink,
    async readLinks({ turn, signal }) {
      if (options.mode === 'off' || (options.mode === 'mention-only' && turn.isAddressedToBot === false)) {
        return { documents: [], images: [], notices: [] };
      }
      const links = findLinks(turn.text, options.maxLinks);
      const findings = await Promise.all(
        links.map((url) => readLink({ url, ...(signal ? { signal } : {}) })),
      );
      return {
        documents: findings.flatMap((finding) => (finding.kind === 'document' ? [finding.document] : [])),
        images: findings.flatMap((finding) => (finding.kind === 'image' ? [finding.image] : [])),
        notices: findings.flatMap((finding) =>
          finding.kind !== 'image' && finding.notice ? [finding.notice] : [],
        ),
      };
    },
  };
}

async function fetchLink({
  url,
  options,
  policy,
  robots,
  signal,
}: {
  url: string;
  options: LinkReaderOptions;
  policy: UrlPolicy;
  robots: RobotsRules;
  signal?: AbortSignal;
}): Promise<LinkFinding> {
  const name = shortName(url);
  try {
    const robotsVerdict = await robots.verdictFor(new URL(url));
    if (robotsVerdict.kind !== 'allowed')
      return { kind: 'refused', notice: robotsRefusal(robotsVerdict, name) };
    const { response, finalUrl } = await guardedFetch({
      url,
      policy,
      timeoutMs: options.timeoutMs,
      maxRedirects: 5,
      headersFor: () => ({
        'user-agent': options.userAgent,
        accept: 'text/html,application/xhtml+xml,application/pdf,text/plain;q=0.9,image/*;q=0.8,*/*;q=0.5',
      }),
      ...(signal ? { signal } : {}),
    });
    if (!response.ok) {
      await response.body.cancel();
      return {
        kind: 'refused',
        notice: renderNotice({ type: 'link-answered-with-error', name, status: response.status }),
      };
    }
    const mimeType = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    const body = await readPrefix(response.body, options.maxBytes);
    options.logger.info(
      {
        host: finalUrl.host,
        status: response.status,
        mimeType,
        byteLength: body.bytes.length,
        isTruncated: body.isTruncated,
      },
      'link read',
    );
    return toFinding({ url: finalUrl.href, name, mimeType, body, maxBytes: options.maxBytes });
  } catch (error) {
    options.logger.warn({ err: error, host: hostOf(url), purpose: policy.purpose }, 'link not read');
    if (error instanceof BlockedUrlError) {
      return {
        kind: 'refused',
        notice: renderNotice({ type: 'link-refused', name, why: describeRefusal(error) }),
      };
    }
    return {
      kind: 'refused',
      notice: renderNotice({ type: 'link-unreachable', name, cause: unreachableCauseOf(error) }),
    };
  }
}

// Only the site's own rules are told as robots.txt: a site that cannot be reached, or that fails to
// serve its robots.txt, is told as such (parley still does not fetch from it, as RFC 9309 asks).
function robotsRefusal(verdict: Exclude<RobotsVerdict, { kind: 'allowed' }>, name: string): string {
  switch (verdict.kind) {
    case 'disallowed':
      return renderNotice({ type: 'link-disallowed-by-robots', name });
    case 'unreachable':
      return renderNotice({ type: 'link-unreachable', name, cause: verdict.cause });
    case 'server-error':
      return renderNotice({ type: 'link-answered-with-error', name, status: verdict.status });
  }
}

function toFinding({
  url,
  name,
  mimeType,
  body,
  maxBytes,
}: {
  url: string;
  name: string;
  mimeType: string;
  body: { bytes: Uint8Array; isTruncated: boolean };
  maxBytes: number;
}): LinkFinding {
  const isPage =
    mimeType === 'text/html' || mimeType === 'application/xhtml+xml' || mimeType.startsWith('text/');
  if (body.isTruncated && !isPage) {
    return {
      kind: 'refused',
      notice: renderNotice({ type: 'link-too-large', name, maxBytes }),
    };
  }
  if (mimeType.startsWith('image/')) {
    return { kind: 'image', image: { name, publicUrl: url, load: async () => body.bytes } };
  }
  const document: DocumentAttachment = { name, mimeType, sourceUrl: url, load: async () => body.bytes };
  // A page longer than the cap is read up to it: HTML parses well cut short, and its start matters most.
  return body.isTruncated
    ? {
        kind: 'document',
        document,
        notice: renderNotice({ type: 'page-cut', name, maxBytes }),
      }
    : { kind: 'document', document };
}

async function readPrefix(
  body: AsyncIterable<Uint8Array> & { cancel(): Promise<void> },
  maxBytes: number,
): Promise<{ bytes: Uint8Array; isTruncated: boolean }> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    total += chunk.length;
    if (total > maxBytes) {
      await body.cancel();
      return { bytes: new Uint8Array(Buffer.concat(chunks).subarray(0, maxBytes)), isTruncated: true };
    }
  }
  return { bytes: new Uint8Array(Buffer.concat(chunks)), isTruncated: false };
}

/** `example.com/blog/post`: a link as a person recognises it, short enough for a note. */
function shortName(url: string): string {
  try {
    const parsed = new URL(url);
    const shown = `${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
    return shown.length > 80 ? `${shown.slice(0, 79)}…` : shown;
  } catch {
    return url.slice(0, 80);
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '(not a link)';
  }
}
