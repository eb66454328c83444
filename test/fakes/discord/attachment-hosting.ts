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
}

/** An attachment of a message as the fake stores it: a hosted file and its public address. */
export interface FakeAttachment {
  id: string;
  filename: string;
  contentType: string;
  sizeBytes: number;
  /** Where the file is served, without authentication, like Discord's CDN. */
  url: string;
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
  clear(): void;
}

const pathPrefix = '/attachments/';

/** Creates the attachment host for the fake reachable at `origin()`. */
export function createAttachmentHosting(ids: SnowflakeGenerator, origin: () => string): AttachmentHosting {
  const files = new Map<string, FakeFile>();

  return {
    host(channelId, file) {
      const id = ids.next();
      files.set(id, file);
      return {
        id,
        filename: file.filename,
        contentType: file.contentType,
        sizeBytes: file.bytes.length,
        url: `${origin()}${pathPrefix}${channelId}/${id}/${encodeURIComponent(file.filename)}`,
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
      if (file === undefined || request.method !== 'GET') {
        response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
        response.end('Not Found');
        return true;
      }
      response.writeHead(200, { 'content-type': file.contentType, 'content-length': file.bytes.length });
      response.end(file.bytes);
      return true;
    },
    clear() {
      files.clear();
    },
  };
}
