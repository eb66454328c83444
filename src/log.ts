import { createWriteStream, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { type DestinationStream, type Logger, pino } from 'pino';
import type { Config } from './config.ts';
import { capLogLine, serializeErrorForLog, summarizeLogObject } from './log-values.ts';

export type { Logger } from 'pino';

const redactedMarker = '[redacted]';

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

// Credentials that look like credentials even when parley was not told their value.
const credentialReplacements: ReadonlyArray<readonly [RegExp, string]> = [
  [/\b(Bearer|Bot)\s+[\w.~+/=-]{8,}/g, `$1 ${redactedMarker}`],
  [/\bxox[abposr]-[\w-]{8,}/g, redactedMarker],
  [/\bxapp-[\w-]{8,}/g, redactedMarker],
  [/\b(sk|rk)-[\w-]{16,}/g, redactedMarker],
  // user:password@ in connection URLs (redis://, postgres://)
  [/(\/\/[^:/\s@]*:)[^@\s/]+@/g, `$1${redactedMarker}@`],
];

/** Replaces every known secret value and every credential-shaped string in `text`. */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let scrubbed = text;
  for (const secret of secrets) {
    if (secret.length >= 4) scrubbed = scrubbed.replaceAll(secret, redactedMarker);
  }
  for (const [pattern, replacement] of credentialReplacements) {
    scrubbed = scrubbed.replace(pattern, replacement);
  }
  return scrubbed;
}

export interface CreateLoggerOptions {
  readonly log: Config['log'];
  readonly secrets: readonly string[];
  /** Where lines go when no LOG_FILE is set; tests pass their own stream. */
  readonly destination?: DestinationStream;
}

/** pino, JSON by default and pretty on request, that never writes a secret. */
export function createLogger({ log, secrets, destination }: CreateLoggerOptions): Logger {
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
