import type { OutgoingFile } from '../../src/delivery/surface.ts';
import { detectImageType } from '../../src/images/image-type.ts';

/** What is left to upload, and one sentence for the person about each file that changed or went. */
export interface FittedUploads {
  readonly files: readonly OutgoingFile[];
  readonly notes: readonly string[];
}

const qualities = [85, 75, 65, 55, 45];
const scaleStep = 0.75;
const smallestSidePx = 64;

/**
 * Makes files fit Discord's upload limits before they are sent (a refused upload loses the whole
 * message): each file within `maxFileBytes`, all together within `maxTotalBytes`. A too-large image
 * is re-encoded smaller; anything else that does not fit is left out. Each change gets a note.
 */
export async function fitUploads({
  files,
  maxFileBytes,
  maxTotalBytes,
}: {
  files: readonly OutgoingFile[];
  maxFileBytes: number;
  maxTotalBytes: number;
}): Promise<FittedUploads> {
  const kept: OutgoingFile[] = [];
  // What each kept file was made from, so a file changed twice gets one note about its original.
  const originals = new Map<OutgoingFile, OutgoingFile>();
  const notes = new Map<OutgoingFile, string>();
  for (const file of files) {
    if (file.bytes.length <= maxFileBytes) {
      kept.push(file);
      continue;
    }
    const limit = `the ${formatBytes(maxFileBytes)} Discord takes a file here`;
    const smaller = await shrinkImage({ file, maxBytes: maxFileBytes });
    if (smaller) {
      kept.push(smaller);
      originals.set(smaller, file);
    }
    notes.set(file, changeNote({ original: file, smaller, limit }));
  }
  while (totalBytes(kept) > maxTotalBytes) {
    const largest = kept.reduce((biggest, file) =>
      file.bytes.length > biggest.bytes.length ? file : biggest,
    );
    const original = originals.get(largest) ?? largest;
    const room = maxTotalBytes - (totalBytes(kept) - largest.bytes.length);
    const smaller = room > 0 ? await shrinkImage({ file: original, maxBytes: room }) : undefined;
    kept.splice(kept.indexOf(largest), 1, ...(smaller ? [smaller] : []));
    if (smaller) originals.set(smaller, original);
    const limit = `the ${formatBytes(maxTotalBytes)} one message may carry in all`;
    notes.set(original, changeNote({ original, smaller, limit }));
  }
  return { files: kept, notes: [...notes.values()] };
}

/**
 * An image re-encoded to at most `maxBytes`: JPEG (WebP when it has transparency, which JPEG would
 * lose) at falling quality, then at smaller sizes. `undefined` when it is no image or cannot fit.
 */
export async function shrinkImage({
  file,
  maxBytes,
}: {
  file: OutgoingFile;
  maxBytes: number;
}): Promise<OutgoingFile | undefined> {
  if (!detectImageType(file.bytes)) return undefined;
  // libvips is loaded with the first image to shrink, not at start.
  const { default: sharp } = await import('sharp');
  const metadata = await sharp(file.bytes, { animated: false }).metadata();
  const format = metadata.hasAlpha ? 'webp' : 'jpeg';
  const encode = async (widthPx: number, quality: number) => {
    const image = sharp(file.bytes, { animated: false, limitInputPixels: 100_000_000 })
      .rotate()
      .resize({ width: widthPx, withoutEnlargement: true });
    const encoded = format === 'webp' ? image.webp({ quality }) : image.jpeg({ quality, mozjpeg: true });
    return new Uint8Array(await encoded.toBuffer());
  };
  const asFile = (bytes: Uint8Array): OutgoingFile => ({
    name: `${file.name.replace(/\.[^.]*$/, '')}.${format === 'webp' ? 'webp' : 'jpg'}`,
    mimeType: format === 'webp' ? 'image/webp' : 'image/jpeg',
    bytes,
  });
  let widthPx = metadata.width ?? 0;
  for (const quality of qualities) {
    const bytes = await encode(widthPx, quality);
    if (bytes.length <= maxBytes) return asFile(bytes);
  }
  while (widthPx * scaleStep >= smallestSidePx) {
    widthPx = Math.round(widthPx * scaleStep);
    const bytes = await encode(widthPx, qualities[1] ?? 75);
    if (bytes.length <= maxBytes) return asFile(bytes);
  }
  return undefined;
}

function changeNote({
  original,
  smaller,
  limit,
}: {
  original: OutgoingFile;
  smaller: OutgoingFile | undefined;
  limit: string;
}): string {
  const size = formatBytes(original.bytes.length);
  return smaller
    ? `${original.name} (${size}) was over ${limit}, so it comes as ${smaller.name} (${formatBytes(smaller.bytes.length)}).`
    : `I left out ${original.name} (${size}): it is over ${limit}.`;
}

function totalBytes(files: readonly OutgoingFile[]): number {
  return files.reduce((total, file) => total + file.bytes.length, 0);
}

/** Sizes as Discord states its limits: binary megabytes ("10 MB" is 10 MiB). */
export function formatBytes(bytes: number): string {
  const mebibytes = bytes / (1024 * 1024);
  if (mebibytes >= 1) return `${Number(mebibytes.toFixed(1))} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${bytes} bytes`;
}

/** Room for each file's multipart headers (boundary, disposition, type) in a request. */
const multipartBytesPerFile = 512;

/**
 * Files and text for one Discord message, fitted to the per-file limit and to the request limit,
 * which counts the rest of the payload (`otherPayload`: embeds, buttons) too. The notes end the text.
 */
export async function fitMessageUploads({
  files,
  text,
  otherPayload,
  maxFileBytes,
  maxRequestBytes,
  maxTextLength,
}: {
  files: readonly OutgoingFile[];
  text: string;
  otherPayload: unknown;
  maxFileBytes: number;
  maxRequestBytes: number;
  maxTextLength: number;
}): Promise<{ files: readonly OutgoingFile[]; text: string }> {
  const payloadBytes = Buffer.byteLength(JSON.stringify(otherPayload ?? {})) + Buffer.byteLength(text);
  const fitted = await fitUploads({
    files,
    maxFileBytes,
    maxTotalBytes: maxRequestBytes - payloadBytes - multipartBytesPerFile * files.length,
  });
  const notes = fitted.notes.map((note) => `_⚠ ${note}_`).join('\n');
  const withNotes = [text, notes].filter((part) => part !== '').join('\n\n');
  return {
    files: fitted.files,
    text: withNotes.length <= maxTextLength ? withNotes : `${withNotes.slice(0, maxTextLength - 1)}…`,
  };
}

/** Files as discord.js sends them. */
export function asAttachments(files: readonly OutgoingFile[]): { attachment: Buffer; name: string }[] {
  return files.map((file) => ({ attachment: Buffer.from(file.bytes), name: file.name }));
}
