import { formatSize, ImageLoadError } from '../conversation/image-intake.ts';

/**
 * Downloads an attachment a person posted, refusing to read more than `maxBytes` (by the declared
 * length and while reading, since a length header can be absent or wrong). A sign-in page where an
 * image should be (Slack without `files:read`) is reported as such.
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
  const declaredLength = Number(response.headers.get('content-length') ?? 0);
  const tooBig = () =>
    new ImageLoadError({
      message: 'attachment over the size limit',
      userMessage: `${name} is over the ${formatSize(maxBytes)} limit, so I left it out.`,
    });
  if (declaredLength > maxBytes) {
    await response.body?.cancel();
    throw tooBig();
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of response.body ?? []) {
    total += chunk.length;
    if (total > maxBytes) throw tooBig();
    chunks.push(chunk);
  }
  return new Uint8Array(Buffer.concat(chunks));
}
