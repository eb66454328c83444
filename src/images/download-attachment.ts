import { formatSize } from '../format-size.ts';
import { BlockedUrlError, describeRefusal, guardedFetch } from '../net/guarded-fetch.ts';
import type { UrlPolicy } from '../net/url-policy.ts';
import { ImageLoadError } from './image-load-error.ts';
import { readBoundedBody } from './read-bounded-body.ts';

/**
 * Downloads an attachment a person posted, only from where `policy` allows (see guarded-fetch.ts),
 * refusing to read more than `maxBytes`. A web page where a file should be (Slack without
 * `files:read`) is reported as `htmlMeaning`.
 */
export async function downloadAttachment({
  url,
  name,
  maxBytes,
  policy,
  headersFor,
  timeoutMs = 30_000,
  htmlMeaning = 'the platform sent a web page instead of the file',
  signal,
}: {
  url: string;
  name: string;
  maxBytes: number;
  policy: UrlPolicy;
  /** Headers for each hop, e.g. a token only for the platform's own hosts. */
  headersFor?: (url: URL) => Record<string, string>;
  timeoutMs?: number;
  /** What an HTML answer means on this platform, in words for the person. */
  htmlMeaning?: string | ((finalUrl: URL) => string);
  signal?: AbortSignal;
}): Promise<Uint8Array> {
  let fetched: Awaited<ReturnType<typeof guardedFetch>>;
  try {
    fetched = await guardedFetch({
      url,
      policy,
      timeoutMs,
      ...(headersFor ? { headersFor } : {}),
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    if (error instanceof BlockedUrlError) {
      throw new ImageLoadError({
        message: `${policy.purpose} download refused: ${error.message}`,
        userMessage: `I did not download ${name}: ${describeRefusal(error)}, so I left it out.`,
        cause: error,
      });
    }
    throw error;
  }
  const { response, finalUrl } = fetched;
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new ImageLoadError({
      message: `${policy.purpose} download answered ${response.status}`,
      userMessage: `I could not download ${name} (the platform answered ${response.status}), so I left it out.`,
    });
  }
  if ((response.headers.get('content-type') ?? '').toLowerCase().startsWith('text/html')) {
    await response.body?.cancel().catch(() => undefined);
    throw new ImageLoadError({
      message: `${policy.purpose} download returned HTML`,
      userMessage: `I could not read ${name}: ${typeof htmlMeaning === 'function' ? htmlMeaning(finalUrl) : htmlMeaning}.`,
    });
  }
  return readBoundedBody({
    response,
    maxBytes,
    tooBig: () =>
      new ImageLoadError({
        message: 'attachment over the size limit',
        userMessage: `${name} is over the ${formatSize(maxBytes)} limit, so I left it out.`,
      }),
  });
}
