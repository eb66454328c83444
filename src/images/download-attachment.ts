import { formatSize, ImageLoadError } from '../conversation/image-intake.ts';
import { readBoundedBody } from './read-bounded-body.ts';

/**
 * Downloads an attachment a person posted, refusing to read more than `maxBytes`. A sign-in page
 * where an image should be (Slack without `files:read`) is reported as such.
 */
export async function downloadAttachment({
  url,
  name,
  maxBytes,
  headers = {},
  timeoutMs = 30_000,
  htmlMeaning = 'the platform sent a web page instead of the file',
}: {
  url: string;
  name: string;
  maxBytes: number;
  headers?: Record<string, string>;
  timeoutMs?: number;
  /** What an HTML answer means on this platform, in words for the person. */
  htmlMeaning?: string;
}): Promise<Uint8Array> {
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs), redirect: 'follow' });
  if (!response.ok) {
    throw new ImageLoadError({
      message: `attachment download answered ${response.status}`,
      userMessage: `I could not download ${name} (the platform answered ${response.status}), so I left it out.`,
    });
  }
  if ((response.headers.get('content-type') ?? '').toLowerCase().startsWith('text/html')) {
    await response.body?.cancel();
    throw new ImageLoadError({
      message: 'attachment download returned HTML',
      userMessage: `I could not read ${name}: ${htmlMeaning}.`,
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
