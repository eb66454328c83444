import type { IncomingHttpHeaders } from 'node:http';
import { SlackApiError } from './slack-api-error.ts';

/** The arguments of one Web API call, with JSON-valued fields decoded. */
export type ApiArguments = Record<string, unknown>;

/** A Web API request as the fake understood it. */
export interface ParsedApiRequest {
  arguments: ApiArguments;
  /** From `Authorization: Bearer …`, else from a `token` argument, as Slack accepts both. */
  token: string | undefined;
}

// Fields whose values are JSON documents. A form-encoded call (what the WebClient sends) carries them
// as strings; a JSON call carries them as values.
const jsonValuedFields = new Set([
  'attachments',
  'blocks',
  'chunks',
  'files',
  'metadata',
  // assistant.threads.setSuggestedPrompts
  'prompts',
  'unfurls',
  'view',
  'user_auth_blocks',
]);

/** Parses query, form, JSON or multipart arguments of a Web API request. */
export async function parseApiRequest(options: {
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}): Promise<ParsedApiRequest> {
  const collected: ApiArguments = {};
  for (const [name, value] of new URL(options.url, 'http://fake').searchParams) {
    collected[name] = value;
  }
  const contentType = (options.headers['content-type'] ?? '').toLowerCase();
  if (options.body.length > 0) {
    if (contentType.startsWith('application/json')) {
      Object.assign(collected, parseJsonObject(options.body.toString('utf8')));
    } else if (contentType.startsWith('multipart/form-data')) {
      Object.assign(collected, await parseMultipart(options));
    } else {
      for (const [name, value] of new URLSearchParams(options.body.toString('utf8'))) {
        collected[name] = value;
      }
    }
  }

  const { token: bodyToken, ...rest } = collected;
  const decoded: ApiArguments = {};
  for (const [name, value] of Object.entries(rest)) {
    decoded[name] =
      jsonValuedFields.has(name) && typeof value === 'string' ? decodeJsonField(name, value) : value;
  }
  const bearer = /^Bearer\s+(\S+)$/i.exec(options.headers.authorization ?? '')?.[1];
  return { arguments: decoded, token: bearer ?? (typeof bodyToken === 'string' ? bodyToken : undefined) };
}

function parseJsonObject(text: string): ApiArguments {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new SlackApiError('invalid_json');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new SlackApiError('json_not_object');
  }
  return parsed as ApiArguments;
}

async function parseMultipart(options: {
  headers: IncomingHttpHeaders;
  body: Buffer;
}): Promise<ApiArguments> {
  const form = await new Response(options.body, {
    headers: { 'content-type': String(options.headers['content-type']) },
  }).formData();
  const collected: ApiArguments = {};
  for (const [name, value] of form) {
    collected[name] = typeof value === 'string' ? value : Buffer.from(await value.arrayBuffer());
  }
  return collected;
}

function decodeJsonField(name: string, value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    // Slack names the bad field in the error code for the fields an app sends most.
    throw new SlackApiError(name === 'blocks' ? 'invalid_blocks_format' : `invalid_${name}`);
  }
}

/** A string argument, or `undefined` when it is missing or empty. */
export function stringArgument(args: ApiArguments, name: string): string | undefined {
  const value = args[name];
  if (typeof value === 'string') {
    return value === '' ? undefined : value;
  }
  if (typeof value === 'number' || typeof value === 'boolean') {
    return String(value);
  }
  return undefined;
}

/** A boolean argument: form fields arrive as `'true'`/`'false'` (or `1`/`0`), JSON ones as booleans. */
export function booleanArgument(args: ApiArguments, name: string): boolean {
  const value = args[name];
  return value === true || value === 'true' || value === '1' || value === 1;
}

/** A numeric argument, or `undefined`. */
export function numberArgument(args: ApiArguments, name: string): number | undefined {
  const text = stringArgument(args, name);
  if (text === undefined) {
    return undefined;
  }
  const value = Number(text);
  return Number.isFinite(value) ? value : undefined;
}

/** An array argument (blocks, chunks, files), or `undefined`. */
export function arrayArgument(args: ApiArguments, name: string): unknown[] | undefined {
  const value = args[name];
  if (value === undefined || value === null || value === '') {
    return undefined;
  }
  if (!Array.isArray(value)) {
    throw new SlackApiError(name === 'blocks' ? 'invalid_blocks_format' : 'invalid_array_arg');
  }
  return value;
}
