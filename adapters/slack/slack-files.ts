import { formatSize, ImageLoadError } from '../../src/conversation/image-intake.ts';
import type { ImageAttachment } from '../../src/conversation/turn.ts';
import { downloadAttachment } from '../../src/images/download-attachment.ts';

/** A file as Slack events and `conversations.*` show it (the fields parley reads). */
export interface SlackFileObject {
  readonly id: string;
  readonly name?: string;
  readonly title?: string;
  readonly mimetype?: string;
  readonly filetype?: string;
  readonly size?: number;
  readonly mode?: string;
  readonly url_private?: string;
  readonly url_private_download?: string;
}

// Without `files:read` Slack does not answer 401: it redirects to its sign-in page.
const signInPageMeaning =
  'Slack sent its sign-in page instead of the file, which means the app lacks the files:read scope (an admin can add it and reinstall the app)';

const imageFileTypes = new Set(['png', 'jpg', 'jpeg', 'gif', 'webp']);
const textExtensions =
  /\.(txt|md|markdown|csv|tsv|json|ya?ml|xml|log|ini|toml|js|ts|jsx|tsx|py|rb|go|rs|java|kt|c|h|cpp|cs|php|sh|sql|html|css)$/i;

export function isImageFile(file: SlackFileObject): boolean {
  return (
    (file.mimetype ?? '').startsWith('image/') || imageFileTypes.has((file.filetype ?? '').toLowerCase())
  );
}

export function isTextFile(file: SlackFileObject): boolean {
  const mimetype = file.mimetype ?? '';
  return (
    mimetype.startsWith('text/') ||
    mimetype.includes('json') ||
    textExtensions.test(file.name ?? '') ||
    file.filetype === 'text'
  );
}

/** The name a person knows a file by. */
export function fileNameOf(file: SlackFileObject): string {
  return file.name || file.title || file.id;
}

/**
 * Downloads a private Slack file with the bot token, refusing more than `maxBytes` and reporting an
 * HTML sign-in page (missing `files:read`) as such.
 */
export async function downloadSlackFile({
  file,
  botToken,
  maxBytes,
}: {
  file: SlackFileObject;
  botToken: string;
  maxBytes: number;
}): Promise<Uint8Array> {
  const name = fileNameOf(file);
  const url = file.url_private_download ?? file.url_private;
  if (url === undefined || file.mode === 'tombstone' || file.mode === 'hidden_by_limit') {
    throw new ImageLoadError({
      message: `slack file ${file.id} has no download URL (mode ${file.mode})`,
      userMessage: `I cannot open ${name} (Slack no longer shows it), so I left it out.`,
    });
  }
  if (file.size !== undefined && file.size > maxBytes) {
    throw new ImageLoadError({
      message: 'attachment over the size limit',
      userMessage: `${name} is over the ${formatSize(maxBytes)} limit, so I left it out.`,
    });
  }
  return downloadAttachment({
    url,
    name,
    maxBytes,
    headers: { Authorization: `Bearer ${botToken}` },
    htmlMeaning: signInPageMeaning,
  });
}

/** An image file that downloads only when the engine gets to it. */
export function slackImageAttachment({
  file,
  botToken,
  maxBytes,
}: {
  file: SlackFileObject;
  botToken: string;
  maxBytes: number;
}): ImageAttachment {
  return { name: fileNameOf(file), load: () => downloadSlackFile({ file, botToken, maxBytes }) };
}
