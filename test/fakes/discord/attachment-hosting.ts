import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SnowflakeGenerator } from './snowflake.ts';

/** A file as a test hands it to the fake, or as the bot uploaded it. */
export interface FakeFile {
  filename: string;
  /** MIME type, e.g. `image/png`. */
  contentType: string;
  bytes: Uint8Array;
  /** Alt text. */
  description?: string;
  /**
   * The attachment's `url` is this link instead of one on the fake's CDN: what a bot receives when a
   * message (or a proxy, or a forged payload) names a file somewhere else. For tests of what a bot
   * is willing to fetch.
   */
  linkTo?: string;
  /** The fake's CDN answers this file's link with a 302 to here instead of the bytes. */
  redirectTo?: string;
}

/** An attachment of a message as the fake stores it: a hosted file and its public address. */
export interface FakeAttachment {
  id: string;
  filename: string;
  contentType: string;
  sizeBytes: number;
  /**
   * Where the file is served, without authentication, like Discord's CDN: a signed link that expires
   * (`ex`, `is`, `hm`). Every read signs it afresh, as every Discord payload carries a fresh link.
   */
  readonly url: string;
  description: string | null;
}

/** Hosts attachment bytes under `/attachments/` on the fake's own port. */
export interface AttachmentHosting {
  /** Stores a file of a message in `channelId` and returns its attachment record. */
  host(channelId: string, file: FakeFile): FakeAttachment;
  /** The bytes behind an attachment, or `undefined` when it was never hosted (or cleared). */
  bytesOf(attachmentId: string): Uint8Array | undefined;
  /** Answers `GET /attachments/...`; returns `false` when the path is not an attachment path. */
  serve(request: IncomingMessage, response: ServerResponse, path: string): boolean;
  /** Moves the CDN's clock forward, so links issued before now + `elapsedMs` may have expired. */
  advanceClock(elapsedMs: number): void;
  /** Every GET of an attachment link, with what the CDN answered. */
  readonly downloads: AttachmentDownload[];
  clear(): void;
}

/** One GET of an attachment link. */
export interface AttachmentDownload {
  attachmentId: string;
  status: number;
}

/**
 * Discord signs attachment CDN links with a preset expiry: `ex` (hex timestamp of expiry), `is`
 * (hex timestamp of issue) and `hm` (a signature valid until `ex`), and refreshes them in every
 * payload it sends (discord-api-docs developers/reference.mdx, "Signed Attachment CDN URLs"). The
 * lifetime is not documented; clients see about 24 hours.
 */
const linkLifetimeMs = 24 * 60 * 60 * 1000;
const pathPrefix = '/attachments/';

/** Creates the attachment host for the fake reachable at `origin()`. */
export function createAttachmentHosting(ids: SnowflakeGenerator, origin: () => string): AttachmentHosting {
  const files = new Map<string, FakeFile>();
  const downloads: AttachmentDownload[] = [];
  const signingKey = randomBytes(32);
  let clockOffsetMs = 0;
  const nowSeconds = () => Math.floor((Date.now() + clockOffsetMs) / 1000);
  const signatureOf = (path: string, expires: string, issued: string) =>
    createHmac('sha256', signingKey).update(`${path}|${expires}|${issued}`).digest('hex');
  const signedLink = (path: string) => {
    const issued = nowSeconds().toString(16);
    const expires = (nowSeconds() + linkLifetimeMs / 1000).toString(16);
    return `${origin()}${path}?ex=${expires}&is=${issued}&hm=${signatureOf(path, expires, issued)}&`;
  };
  const isValidLink = (path: string, query: URLSearchParams) => {
    const expires = query.get('ex') ?? '';
    const issued = query.get('is') ?? '';
    const given = Buffer.from(query.get('hm') ?? '', 'hex');
    const wanted = Buffer.from(signatureOf(path, expires, issued), 'hex');
    const isSigned = given.length === wanted.length && timingSafeEqual(given, wanted);
    return isSigned && Number.parseInt(expires, 16) > nowSeconds();
  };

  return {
    host(channelId, file) {
      const id = ids.next();
      files.set(id, file);
      const path = `${pathPrefix}${channelId}/${id}/${encodeURIComponent(file.filename)}`;
      return {
        id,
        filename: file.filename,
        contentType: file.contentType,
        sizeBytes: file.bytes.length,
        get url() {
          return file.linkTo ?? signedLink(path);
        },
        description: file.description ?? null,
      };
    },
    bytesOf(attachmentId) {
      return files.get(attachmentId)?.bytes;
    },
    serve(request, response, path) {
      if (!path.startsWith(pathPrefix)) {
        return false;
      }
      // `/attachments/<channel id>/<attachment id>/<file name>`: the id alone finds the file.
      const attachmentId = path.slice(pathPrefix.length).split('/')[1] ?? '';
      const file = files.get(attachmentId);
      const query = new URL(request.url ?? '/', 'http://fake').searchParams;
      // An unsigned or expired link is refused; Discord answers "This content is no longer available."
      const status =
        file === undefined || request.method !== 'GET' || !isValidLink(path, query)
          ? 404
          : file.redirectTo
            ? 302
            : 200;
      if (file !== undefined) downloads.push({ attachmentId, status });
      if (status === 404 || file === undefined) {
        response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
        response.end('This content is no longer available.');
      } else if (status === 302) {
        response.writeHead(302, { location: file.redirectTo, 'content-length': 0 });
        response.end();
      } else {
        response.writeHead(200, { 'content-type': file.contentType, 'content-length': file.bytes.length });
        response.end(file.bytes);
      }
      return true;
    },
    advanceClock(elapsedMs) {
      clockOffsetMs += elapsedMs;
    },
    downloads,
    clear() {
      files.clear();
      downloads.length = 0;
    },
  };
}
