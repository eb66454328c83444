import { createWriteStream, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { type DestinationStream, type Logger, pino } from 'pino';
import type { Config } from './config.ts';
import { capLogLine, serializeErrorForLog, summarizeLogObject } from './log-values.ts';
import { learnedSecrets } from './secrets/known-secret-values.ts';
import { findSecrets, redactedMarker, redactFindings } from './secrets/secret-detector.ts';
import { traceIdsOfActiveSpan } from './tracing/log-trace-ids.ts';

export type { Logger } from 'pino';

/** No line is longer than this; values are capped far below it (see log-values.ts). */
const maxLineCharacters = 32_000;

// Paths name secrets by where they sit in a logged object; the scrubber below catches the same
// secrets anywhere else (an error message, a URL, a response body echoed into an error).
const redactedPaths = [
  'apiKey',
  '*.apiKey',
  'token',
  '*.token',
  'signingSecret',
  '*.signingSecret',
  'headers.authorization',
  'headers.Authorization',
  '*.headers.authorization',
  '*.headers.Authorization',
  '*.*.headers.authorization',
  '*.*.headers.Authorization',
];

/**
 * Replaces every known secret value and every credential-shaped string in `text` (the secret
 * detector's shapes: secretlint's rules and parley's additions). Written lines are JSON, where a
 * newline before a token is the two characters `\n`: the shapes are looked for in a copy with
 * those escapes blanked, so `\nghp_…` is still a token at a word boundary, and the ranges found
 * there are redacted in the line itself.
 */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let scrubbed = text;
  for (const secret of secrets) {
    if (secret.length >= 4) scrubbed = scrubbed.replaceAll(secret, redactedMarker);
  }
  // Tokens read while running (Slack installations), which the environment's list cannot hold.
  for (const secret of learnedSecrets()) scrubbed = scrubbed.replaceAll(secret, redactedMarker);
  const scanned = scrubbed.replace(/\\[nrtfb]/g, '  ');
  return redactFindings({ text: scrubbed, findings: findSecrets({ text: scanned }) });
}

export interface CreateLoggerOptions {
  readonly log: Config['log'];
  readonly secrets: readonly string[];
  /** Where lines go when no LOG_FILE is set; tests pass their own stream. */
  readonly destination?: DestinationStream;
  /** Tracing is on: each line written inside a span carries its `trace_id` and `span_id`. */
  readonly isTraced?: boolean;
}

/** pino, JSON by default and pretty on request, that never writes a secret. */
export function createLogger({ log, secrets, destination, isTraced = false }: CreateLoggerOptions): Logger {
  const target = destination ?? openDestination(log.file);
  const isPretty =
    log.format === 'pretty' ||
    (log.format === undefined && !log.file && process.stderr.isTTY === true && !destination);
  const stream = isPretty ? prettyStream({ destination: target, colorize: !log.file }) : target;
  return pino(
    {
      level: log.level,
      base: { service: 'parley' },
      redact: { paths: redactedPaths, censor: redactedMarker },
      // Sizes, names and status codes, never payloads: an error carrying a request body (a failed
      // upload holds its file) or a Buffer is summarised before it is written.
      serializers: { err: serializeErrorForLog, error: serializeErrorForLog },
      formatters: { log: summarizeLogObject },
      hooks: { streamWrite: (line) => capLogLine(scrubSecrets(line, secrets), maxLineCharacters) },
      // Without tracing no line pays for asking which span it is in.
      ...(isTraced ? { mixin: traceIdsOfActiveSpan } : {}),
    },
    stream,
  );
}

// pino-pretty (and its colour and date libraries) is loaded only when logs are pretty: a bot that
// writes JSON, as on a server, never holds it. Synchronously, because creating a logger is.
const requireOptional = createRequire(import.meta.url);

function prettyStream({ destination, colorize }: { destination: DestinationStream; colorize: boolean }) {
  const pinoPretty = requireOptional('pino-pretty') as typeof import('pino-pretty');
  return pinoPretty({ destination, colorize, sync: true });
}

function openDestination(file: string | undefined): DestinationStream {
  if (!file) return pino.destination({ fd: 2, sync: true });
  mkdirSync(dirname(file), { recursive: true });
  return createWriteStream(file, { flags: 'a' });
}
