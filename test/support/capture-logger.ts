import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/log.ts';

/** A real parley logger (redaction included) whose lines a test can read back. */
export function createCapturedLogger(
  secrets: readonly string[] = [],
  { isTraced = false }: { isTraced?: boolean } = {},
): {
  logger: Logger;
  output: () => string;
} {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const logger = createLogger({
    log: { level: 'debug', format: 'json', file: undefined },
    secrets,
    destination,
    isTraced,
  });
  return { logger, output: () => lines.join('') };
}
