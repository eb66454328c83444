import { SpanKind } from '@opentelemetry/api';
import { ATTR_DB_OPERATION_NAME, ATTR_DB_SYSTEM_NAME } from './span-attributes.ts';
import { currentTracer, isTracingOn, markFailed } from './tracer.ts';

/** A store operation slower than this is a span of the turn; a quicker one is only counted (metrics). */
export const slowStoreOperationMs = 50;

/**
 * A store operation that took long or failed, as a `store {operation}` span of whatever was active,
 * drawn after the fact from its measured start and end (`performance.now()` times): a reply that
 * waited on its store shows where, and the many quick operations cost nothing.
 */
export function recordSlowStoreOperation({
  backend,
  operation,
  startedAtMs,
  endedAtMs,
  isOk,
  slowAfterMs = slowStoreOperationMs,
}: {
  backend: string;
  operation: string;
  startedAtMs: number;
  endedAtMs: number;
  isOk: boolean;
  slowAfterMs?: number;
}): void {
  if (!isTracingOn() || (isOk && endedAtMs - startedAtMs < slowAfterMs)) return;
  const span = currentTracer().startSpan(`store ${operation}`, {
    kind: SpanKind.CLIENT,
    startTime: startedAtMs,
    attributes: { [ATTR_DB_SYSTEM_NAME]: backend, [ATTR_DB_OPERATION_NAME]: operation },
  });
  if (!isOk) markFailed(span, { kind: 'store_error' });
  span.end(endedAtMs);
}
