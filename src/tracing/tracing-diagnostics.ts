import { DiagLogLevel, diag } from '@opentelemetry/api';
import type { Logger } from '../log.ts';

/**
 * The SDK's own warnings (a collector that does not answer, spans dropped from a full queue) into
 * parley's log, where the secret scrubbing applies; without this they go nowhere. Its chatter below
 * warnings stays out.
 */
export function reportTracingProblems(logger: Logger): void {
  const tracingLogger = logger.child({ component: 'tracing' });
  const write =
    (level: 'error' | 'warn') =>
    (message: string, ...details: unknown[]) =>
      tracingLogger[level]({ details: details.map(String) }, message);
  const quiet = () => {};
  diag.setLogger(
    { error: write('error'), warn: write('warn'), info: quiet, debug: quiet, verbose: quiet },
    { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
  );
}
