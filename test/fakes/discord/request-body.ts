import type { IncomingMessage } from 'node:http';
import type { FakeFile } from './attachment-hosting.ts';
import { DiscordApiError } from './discord-api-error.ts';

/** A REST request body: the JSON payload and, for multipart uploads, the files by their index. */
export interface RequestBody {
  /** The JSON body, or the parsed `payload_json` part of a multipart body; `undefined` when empty. */
  json: unknown;
  /** Uploaded files keyed by `n` of their `files[n]` part. */
  files: Map<number, FakeFile>;
  /** The size of the whole body as it arrived, in bytes. */
  sizeBytes: number;
  /** Whether it came as `multipart/form-data`, which the specification allows per operation. */
  isMultipart: boolean;
}

// Ten files of up to 10 MiB each, plus some room: anything bigger is a runaway client.
const maxBodyBytes = 120 * 1024 * 1024;

/** Reads and parses a body as discord.js sends it: JSON, or multipart with `payload_json` + `files[n]`. */
export async function readRequestBody(request: IncomingMessage): Promise<RequestBody> {
  const bytes = await readBytes(request);
  const contentType = request.headers['content-type'] ?? '';
  if (bytes.length === 0) {
    return { json: undefined, files: new Map(), sizeBytes: 0, isMultipart: false };
  }
  if (contentType.startsWith('multipart/form-data')) {
    return { ...(await parseMultipart(bytes, contentType)), sizeBytes: bytes.length, isMultipart: true };
  }
  return {
    json: parseJson(bytes.toString('utf8')),
    files: new Map(),
    sizeBytes: bytes.length,
    isMultipart: false,
  };
}

async function readBytes(request: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  let totalBytes = 0;
  for await (const part of request) {
    const buffer = part as Buffer;
    totalBytes += buffer.length;
    if (totalBytes > maxBodyBytes) {
      throw new DiscordApiError({ status: 413, code: 40005, message: 'Request entity too large' });
    }
    parts.push(buffer);
  }
  return Buffer.concat(parts);
}

async function parseMultipart(
  bytes: Buffer,
  contentType: string,
): Promise<Omit<RequestBody, 'sizeBytes' | 'isMultipart'>> {
  // The platform's own multipart parser, the same that reads `fetch` responses.
  const form = await new Response(bytes, { headers: { 'content-type': contentType } }).formData();
  const payload = form.get('payload_json');
  const files = new Map<number, FakeFile>();
  for (const [key, value] of form.entries()) {
    const index = /^files\[(\d+)\]$/.exec(key)?.[1];
    if (index !== undefined && typeof value !== 'string') {
      files.set(Number(index), {
        filename: value.name,
        contentType: value.type === '' ? 'application/octet-stream' : value.type,
        bytes: new Uint8Array(await value.arrayBuffer()),
      });
    }
  }
  return { json: typeof payload === 'string' ? parseJson(payload) : undefined, files };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new DiscordApiError({
      status: 400,
      code: 50109,
      message: 'The request body contains invalid JSON.',
    });
  }
}

/** The body as a JSON object; `{}` when it is empty or not an object. */
export function jsonObject(body: RequestBody): Record<string, unknown> {
  const { json } = body;
  return typeof json === 'object' && json !== null && !Array.isArray(json)
    ? (json as Record<string, unknown>)
    : {};
}
