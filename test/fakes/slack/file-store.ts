import { randomSlackId } from './slack-ids.ts';

/** A file object as Slack's API and events show it (the fields a bot reads). */
export interface SlackFile {
  id: string;
  created: number;
  timestamp: number;
  name: string;
  title: string;
  mimetype: string;
  filetype: string;
  pretty_type: string;
  user: string;
  user_team: string;
  size: number;
  mode: 'hosted' | 'external';
  is_external: boolean;
  is_public: boolean;
  /** Needs `Authorization: Bearer <bot token>`; without it the fake redirects to a sign-in page. */
  url_private: string;
  url_private_download: string;
  permalink: string;
  alt_txt?: string;
}

/**
 * How a download of the file is answered besides the bytes: `another-slack-host` redirects to the
 * same file on another Slack file host (here a second path, `/files-origin/`), as Slack may; a link
 * redirects there, away from Slack.
 */
export type FileRedirect = 'another-slack-host' | { to: string };

/** A file with its bytes. */
export interface StoredFile {
  file: SlackFile;
  bytes: Buffer;
  redirect: FileRedirect | undefined;
}

/** A file a bot uploaded through `files.getUploadURLExternal` → POST → `files.completeUploadExternal`. */
export interface UploadedFile {
  id: string;
  name: string;
  title: string;
  mimetype: string;
  bytes: Buffer;
  /** The `length` the bot announced in `files.getUploadURLExternal`. */
  announcedLength: number;
  altText: string | undefined;
  /** Where it was shared; `undefined` when completed without a channel (a private upload). */
  channel: string | undefined;
  threadTs: string | undefined;
  initialComment: string | undefined;
  /** The message the upload created in the channel, once Slack has shared it (asynchronously). */
  messageTs: string | undefined;
  completedAtMs: number;
}

/** An upload between `files.getUploadURLExternal` and `files.completeUploadExternal`. */
export interface PendingUpload {
  fileId: string;
  uploadId: string;
  filename: string;
  announcedLength: number;
  altText: string | undefined;
  /** `undefined` until the bytes are POSTed to the upload URL. */
  bytes: Buffer | undefined;
}

/** One GET of a private file URL. */
export interface FileDownload {
  fileId: string;
  /** Whether the request carried exactly `Bearer <bot token>`; only then did it get the bytes. */
  isAuthorized: boolean;
  /** The `Authorization` header as sent, to catch a doubled scheme or a wrong token. */
  authorization: string | undefined;
  /** Which file host was asked: `files-pri`, or `files-origin` after a redirect between hosts. */
  host: 'files-pri' | 'files-origin';
  atMs: number;
}

/** Files and uploads of one fake. */
export interface FileStore {
  /** Stores bytes as a file with private URLs on the fake. */
  add(options: {
    name: string;
    mimetype?: string;
    bytes: Buffer;
    title?: string;
    user: string;
    /** The id to use, e.g. the one `files.getUploadURLExternal` announced; default a new one. */
    id?: string;
    /**
     * An external file: `url_private` points here, outside Slack (Slack documents that remote and
     * external files carry their own service's link).
     */
    linkTo?: string;
    redirect?: FileRedirect;
  }): SlackFile;
  get(fileId: string): StoredFile | undefined;
  startUpload(options: {
    filename: string;
    announcedLength: number;
    altText: string | undefined;
  }): PendingUpload;
  pendingUpload(uploadId: string): PendingUpload | undefined;
  pendingUploadByFileId(fileId: string): PendingUpload | undefined;
  finishUpload(fileId: string): void;
  readonly uploaded: UploadedFile[];
  readonly downloads: FileDownload[];
  clear(): void;
}

/** Creates the store; URLs point at `origin()` (known only once the server listens). */
export function createFileStore(options: { origin: () => string; teamId: string }): FileStore {
  const files = new Map<string, StoredFile>();
  const pending = new Map<string, PendingUpload>();
  const uploaded: UploadedFile[] = [];
  const downloads: FileDownload[] = [];

  return {
    add({ name, bytes, title, user, mimetype, id = randomSlackId('F'), linkTo, redirect }) {
      const type = mimetype ?? guessMimetype(name, bytes);
      const base = `${options.origin()}/files-pri/${options.teamId}-${id}`;
      const nowSec = Math.floor(Date.now() / 1000);
      const file: SlackFile = {
        id,
        created: nowSec,
        timestamp: nowSec,
        name,
        title: title ?? name,
        mimetype: type,
        filetype: fileTypeOf(name, type),
        pretty_type: fileTypeOf(name, type).toUpperCase(),
        user,
        user_team: options.teamId,
        size: bytes.length,
        mode: linkTo === undefined ? 'hosted' : 'external',
        is_external: linkTo !== undefined,
        is_public: false,
        url_private: linkTo ?? `${base}/${encodeURIComponent(name)}`,
        url_private_download: linkTo ?? `${base}/download/${encodeURIComponent(name)}`,
        permalink: `${options.origin()}/files/${user}/${id}/${encodeURIComponent(name)}`,
      };
      files.set(id, { file, bytes, redirect });
      return file;
    },
    get: (fileId) => files.get(fileId),
    startUpload({ filename, announcedLength, altText }) {
      const upload: PendingUpload = {
        fileId: randomSlackId('F'),
        uploadId: randomSlackId('U', 16).toLowerCase(),
        filename,
        announcedLength,
        altText,
        bytes: undefined,
      };
      pending.set(upload.uploadId, upload);
      return upload;
    },
    pendingUpload: (uploadId) => pending.get(uploadId),
    pendingUploadByFileId: (fileId) => [...pending.values()].find((upload) => upload.fileId === fileId),
    finishUpload(fileId) {
      for (const [uploadId, upload] of pending) {
        if (upload.fileId === fileId) {
          pending.delete(uploadId);
        }
      }
    },
    uploaded,
    downloads,
    clear() {
      files.clear();
      pending.clear();
      uploaded.length = 0;
      downloads.length = 0;
    },
  };
}

const mimetypesByExtension: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  txt: 'text/plain',
  md: 'text/markdown',
  json: 'application/json',
  pdf: 'application/pdf',
};

/** The MIME type Slack would report: from the bytes for common images, else from the name. */
export function guessMimetype(name: string, bytes: Buffer): string {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    return 'image/png';
  }
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) {
    return 'image/jpeg';
  }
  const extension = name.split('.').at(-1)?.toLowerCase() ?? '';
  return mimetypesByExtension[extension] ?? 'application/octet-stream';
}

function fileTypeOf(name: string, mimetype: string): string {
  const extension = name.includes('.') ? name.split('.').at(-1)?.toLowerCase() : undefined;
  if (extension !== undefined && extension !== '') {
    return extension === 'jpeg' ? 'jpg' : extension;
  }
  return mimetype.split('/').at(-1) ?? 'binary';
}
