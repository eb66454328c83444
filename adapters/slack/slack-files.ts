import type { ImageAttachment } from '../../src/conversation/turn.ts';
import { formatSize } from '../../src/format-size.ts';
import { downloadAttachment } from '../../src/images/download-attachment.ts';
import { ImageLoadError } from '../../src/images/image-load-error.ts';
import { hostMatches, originsOf, type UrlPolicy } from '../../src/net/url-policy.ts';

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

/**
 * Slack's own hosts: `url_private` lives on `files.slack.com` and may redirect between Slack hosts
 * (Slack Platform Blog, "Important Changes to Files in the Web API": url_private needs
 * `Authorization: Bearer`; docs.slack.dev file object). GovSlack serves from slack-gov.com.
 */
const slackHosts = ['slack.com', '*.slack.com', 'slack-gov.com', '*.slack-gov.com'];

/** Where a Slack file link may lead: Slack's hosts over https, and the `SLACK_API_URL` origin. */
export function slackFilePolicy(apiUrl: string): UrlPolicy {
  return {
    purpose: 'slack file',
    allowedHosts: slackHosts,
    trustedOrigins: originsOf(apiUrl),
    requiresHttps: true,
  };
}

/**
 * The bot token goes with a request only to Slack's own hosts over https, or to the origin the
 * operator configured as Slack's API; never to another host, and never along with a redirect away
 * from Slack. A token written with its scheme already (`Bearer xoxb-…`) is not doubled.
 */
export function slackFileHeaders({ botToken, apiUrl }: { botToken: string; apiUrl: string }) {
  const policy = slackFilePolicy(apiUrl);
  const authorization = `Bearer ${botToken.replace(/^Bearer\s+/i, '')}`;
  return (url: URL): Record<string, string> => {
    const isSlackHost =
      url.protocol === 'https:' && slackHosts.some((pattern) => hostMatches(pattern, url.hostname));
    return isSlackHost || policy.trustedOrigins.includes(url.origin) ? { Authorization: authorization } : {};
  };
}

const imageFileTypes = new Set(['png', 'jpg', 'jpeg', 'gif', 'webp']);

export function isImageFile(file: SlackFileObject): boolean {
  return (
    (file.mimetype ?? '').startsWith('image/') || imageFileTypes.has((file.filetype ?? '').toLowerCase())
  );
}

/** The name a person knows a file by. */
export function fileNameOf(file: SlackFileObject): string {
  return file.name || file.title || file.id;
}

/**
 * Downloads a private Slack file with the bot token, refusing more than `maxBytes`. Redirects are
 * followed by parley itself (Node's fetch drops `Authorization` on a cross-origin redirect, so a
 * redirect between Slack hosts would land on the sign-in page), each hop judged by `slackFilePolicy`
 * and given the token only when it is Slack's. Only the sign-in page is called a missing scope.
 */
export async function downloadSlackFile({
  file,
  botToken,
  apiUrl,
  maxBytes,
}: {
  file: SlackFileObject;
  botToken: string;
  /** `SLACK_API_URL`: its origin is Slack's own for downloads too (a proxy, or the fake in tests). */
  apiUrl: string;
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
    policy: slackFilePolicy(apiUrl),
    headersFor: slackFileHeaders({ botToken, apiUrl }),
    htmlMeaning: signInPageMeaning,
  });
}

/** An image file that downloads only when the engine gets to it. */
export function slackImageAttachment({
  file,
  botToken,
  apiUrl,
  maxBytes,
}: {
  file: SlackFileObject;
  botToken: string;
  apiUrl: string;
  maxBytes: number;
}): ImageAttachment {
  return { name: fileNameOf(file), load: () => downloadSlackFile({ file, botToken, apiUrl, maxBytes }) };
}
