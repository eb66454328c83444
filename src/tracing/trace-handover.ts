import {
  context,
  createContextKey,
  type Link,
  propagation,
  ROOT_CONTEXT,
  type SpanContext,
  trace,
} from '@opentelemetry/api';
import { ATTR_PARLEY_LINK_REASON } from './span-attributes.ts';
import { isTracingOn } from './tracer.ts';

/**
 * W3C Trace Context (`traceparent`, `tracestate`) carried through what one process leaves for
 * another: the Redis conversation lock's release (the turn that waited for it links to the turn that
 * held it) and a BullMQ job's data (a scheduled run links to the command that made the schedule).
 * Links, not parents: the next turn and a run days later are traces of their own, which lead back.
 */

/** The W3C headers of a trace context, as `propagation.inject` writes them. */
export type TraceCarrier = Readonly<Record<string, string>>;

/** The active span's trace context to leave for another process; undefined with tracing off or outside a span. */
export function traceCarrierOfActiveSpan(): TraceCarrier | undefined {
  if (!isTracingOn() || trace.getActiveSpan() === undefined) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent === undefined ? undefined : carrier;
}

/** The same, as one string to keep in a Redis value ('' when there is nothing to carry). */
export function handedOverTraceContext(): string {
  const carrier = traceCarrierOfActiveSpan();
  return carrier === undefined ? '' : JSON.stringify(carrier);
}

/** The span a carrier names; undefined for a carrier that is absent, unreadable or names none. */
export function spanContextOfCarrier(carrier: unknown): SpanContext | undefined {
  if (!isTracingOn() || typeof carrier !== 'object' || carrier === null) return undefined;
  const headers: Record<string, string> = {};
  for (const name of ['traceparent', 'tracestate']) {
    const value = (carrier as Record<string, unknown>)[name];
    if (typeof value === 'string') headers[name] = value;
  }
  const extracted = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, headers));
  return extracted !== undefined && trace.isSpanContextValid(extracted) ? extracted : undefined;
}

/**
 * Links the active span (the turn that waited for the conversation's lock; or whatever waited for a
 * record's lock, the same Redis lock) to the span whose context the previous holder left at its
 * release: in a trace viewer, the turn leads to the one it waited for, in whichever process that ran.
 */
export function linkHandedOverTrace(handedOver: string | undefined): void {
  if (!isTracingOn() || handedOver === undefined || handedOver === '') return;
  const span = trace.getActiveSpan();
  if (span === undefined || !span.isRecording()) return;
  let carrier: unknown;
  try {
    carrier = JSON.parse(handedOver);
  } catch {
    // Left by something else under the key, or cut: no link, the turn goes on.
    return;
  }
  const previous = spanContextOfCarrier(carrier);
  if (previous === undefined) return;
  span.addLink({
    context: previous,
    attributes: { [ATTR_PARLEY_LINK_REASON]: 'lock handed over' },
  });
}

/** Where a scheduled run's context keeps the span that made its schedule, until the run's span starts. */
const scheduledByKey = createContextKey('parley scheduled by');

/**
 * Runs a due run with the trace context its job carried (`traceCarrierOfActiveSpan` when the
 * schedule was armed) noted, not as the parent: the run is a trace of its own (`traceScheduledRun`),
 * which links to the command that made or resumed the schedule, in whichever process that ran.
 */
export function runScheduledBy<Result>(carrier: unknown, run: () => Promise<Result>): Promise<Result> {
  const scheduledBy = spanContextOfCarrier(carrier);
  if (scheduledBy === undefined) return run();
  return context.with(context.active().setValue(scheduledByKey, scheduledBy), run);
}

/** The link of a scheduled run to the span that made its schedule, when its job carried one. */
export function scheduledByLinks(): Link[] {
  if (!isTracingOn()) return [];
  const scheduledBy = context.active().getValue(scheduledByKey) as SpanContext | undefined;
  return scheduledBy === undefined
    ? []
    : [{ context: scheduledBy, attributes: { [ATTR_PARLEY_LINK_REASON]: 'scheduled by' } }];
}
