import { trace } from '@opentelemetry/api';
import { isTracingOn } from './tracer.ts';

/** With tracing off or outside a recorded span: no exemplar (prom-client keeps none for empty labels). */
export const noExemplar: Readonly<Record<string, string>> = Object.freeze({});

/**
 * The exemplar a histogram keeps with an observation: the trace and span it was made in
 * (OpenMetrics exemplars, `trace_id`/`span_id` as Grafana and Prometheus name them), so a slow
 * bucket on a dashboard leads to a trace that fell in it.
 */
export function exemplarOfActiveSpan(): Readonly<Record<string, string>> {
  if (!isTracingOn()) return noExemplar;
  const span = trace.getActiveSpan();
  if (span === undefined || !span.isRecording()) return noExemplar;
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}
