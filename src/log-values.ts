/**
 * What a log line may hold of a value: its shape, sizes, names and status codes, never a payload.
 * A failed upload's error carries the whole request (discord.js keeps the file bytes in
 * `requestBody`); written as JSON, a 14 MB PNG became a 52 MB line that blocked the event loop.
 */

const maxStringCharacters = 1_000;
const maxStackCharacters = 4_000;
const maxArrayItems = 20;
const maxObjectKeys = 30;
const maxDepth = 4;
const maxCauseDepth = 4;

// Keys that hold what was sent or received: summarised by size, never written.
const bodyKeys = new Set(['body', 'requestBody', 'responseBody', 'rawBody', 'payload', 'json', 'data']);

/** A log object with every value made safe to write; Errors become `{ type, message, … }`. */
export function summarizeLogObject(object: Record<string, unknown>): Record<string, unknown> {
  const seen = new WeakSet<object>();
  const summary: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) {
    summary[key] = summarizeValue({ key, value, depth: 0, seen });
  }
  return summary;
}

/** The `err` serializer: an Error as type, message, code, status and its other fields, summarised. */
export function serializeErrorForLog(value: unknown): unknown {
  return value instanceof Error ? serializeError(value, 0, new WeakSet()) : value;
}

function summarizeValue({
  key,
  value,
  depth,
  seen,
}: {
  key: string;
  value: unknown;
  depth: number;
  seen: WeakSet<object>;
}): unknown {
  if (value === null || value === undefined || typeof value === 'number' || typeof value === 'boolean') {
    return value;
  }
  if (typeof value === 'string') {
    return bodyKeys.has(key) && value.length > maxStringCharacters
      ? `[body omitted, ${value.length} characters]`
      : capString(value, maxStringCharacters);
  }
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object') return `[${typeof value}]`;
  const byteLength = byteLengthOf(value);
  if (byteLength !== undefined) return `[${byteLength} bytes]`;
  if (seen.has(value)) return '[circular]';
  seen.add(value);
  if (value instanceof Error) return serializeError(value, depth, seen);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString();
  if (value instanceof URL) return capString(value.href, maxStringCharacters);
  if (depth >= maxDepth) return Array.isArray(value) ? `[array of ${value.length}]` : '[object]';
  if (Array.isArray(value)) return summarizeArray(value, key, depth, seen);
  if (value instanceof Map || value instanceof Set) return `[${value.constructor.name} of ${value.size}]`;
  if (bodyKeys.has(key) && key !== 'data') return summarizeBody(value, depth, seen);
  return summarizeObject(value as Record<string, unknown>, depth, seen);
}

function summarizeArray(values: readonly unknown[], key: string, depth: number, seen: WeakSet<object>) {
  const shown = values
    .slice(0, maxArrayItems)
    .map((item) => summarizeValue({ key, value: item, depth: depth + 1, seen }));
  return values.length > maxArrayItems ? [...shown, `… ${values.length - maxArrayItems} more`] : shown;
}

function summarizeObject(object: Record<string, unknown>, depth: number, seen: WeakSet<object>) {
  const entries = Object.entries(object);
  const summary: Record<string, unknown> = {};
  for (const [key, value] of entries.slice(0, maxObjectKeys)) {
    if (typeof value === 'function') continue;
    summary[key] = summarizeValue({ key, value, depth: depth + 1, seen });
  }
  if (entries.length > maxObjectKeys) summary['…'] = `${entries.length - maxObjectKeys} more keys`;
  return summary;
}

// A request body: its files by name and size (the discord.js `{ files, json }` shape and any other
// object with `files`), everything else only as "omitted".
function summarizeBody(body: object, depth: number, seen: WeakSet<object>): unknown {
  const files = (body as { files?: unknown }).files;
  if (!Array.isArray(files)) return '[body omitted]';
  return {
    files: summarizeArray(
      files.map((file: Record<string, unknown> | null) => ({
        name: file?.name,
        contentType: file?.contentType,
        bytes: byteLengthOf(file?.data ?? file?.bytes),
      })),
      'files',
      depth,
      seen,
    ),
    ...('json' in body ? { json: '[omitted]' } : {}),
  };
}

function serializeError(error: Error, depth: number, seen: WeakSet<object>): Record<string, unknown> {
  seen.add(error);
  const serialized: Record<string, unknown> = {
    type: error.constructor?.name || error.name,
    message: capString(error.message, maxStringCharacters),
    stack: capString(error.stack ?? '', maxStackCharacters),
  };
  for (const [key, value] of Object.entries(error).slice(0, maxObjectKeys)) {
    if (key === 'cause' || typeof value === 'function') continue;
    serialized[key] = summarizeValue({ key, value, depth: depth + 1, seen });
  }
  const cause = (error as { cause?: unknown }).cause;
  if (cause !== undefined) {
    serialized.cause =
      depth >= maxCauseDepth
        ? '[cause omitted]'
        : cause instanceof Error && !seen.has(cause)
          ? serializeError(cause, depth + 1, seen)
          : summarizeValue({ key: 'cause', value: cause, depth: depth + 1, seen });
  }
  return serialized;
}

function byteLengthOf(value: unknown): number | undefined {
  if (value instanceof ArrayBuffer || value instanceof SharedArrayBuffer) return value.byteLength;
  if (ArrayBuffer.isView(value)) return value.byteLength;
  if (typeof Blob !== 'undefined' && value instanceof Blob) return value.size;
  return undefined;
}

function capString(text: string, maxCharacters: number): string {
  return text.length <= maxCharacters ? text : `${text.slice(0, maxCharacters)}… [${text.length} characters]`;
}

/**
 * A last guard on a whole JSON line: past `maxCharacters`, only its level, time and message stay,
 * with how long it was. Values are already capped, so this takes only what slipped past them.
 */
export function capLogLine(line: string, maxCharacters: number): string {
  if (line.length <= maxCharacters) return line;
  try {
    const { level, time, msg, service } = JSON.parse(line) as Record<string, unknown>;
    return `${JSON.stringify({
      level,
      time,
      service,
      msg: typeof msg === 'string' ? capString(msg, maxStringCharacters) : msg,
      lineCutCharacters: line.length,
    })}\n`;
  } catch {
    return `${line.slice(0, maxCharacters)}\n`;
  }
}
