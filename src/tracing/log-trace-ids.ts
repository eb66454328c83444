import { trace } from '@opentelemetry/api';

/**
 * A pino `mixin`: the ids of the span a line is written in, so a log line leads to its trace.
 * Installed only when tracing is on; a line written outside any recorded span gets nothing.
 */
export function traceIdsOfActiveSpan(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan();
  if (span === undefined || !span.isRecording()) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}
