import { type Logger as BoltLogger, LogLevel } from '@slack/bolt';
import type { Logger } from '../../src/log.ts';

/**
 * Bolt's and the WebClient's log lines (connections, rate limits, listener errors) in parley's log,
 * with its secret redaction, instead of on the console.
 */
export function createBoltLogger(logger: Logger): BoltLogger {
  const boltLogger = logger.child({ component: 'slack-bolt' });
  let level = LogLevel.INFO;
  const write =
    (method: 'debug' | 'info' | 'warn' | 'error') =>
    (...parts: unknown[]): void => {
      const error = parts.find((part) => part instanceof Error);
      const message = parts
        .filter((part) => !(part instanceof Error))
        .map((part) => (typeof part === 'string' ? part : safeJson(part)))
        .join(' ');
      boltLogger[method](error === undefined ? {} : { err: error }, message);
    };
  return {
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    setLevel(newLevel) {
      level = newLevel;
    },
    getLevel: () => level,
    setName: () => undefined,
  };
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
