import { type Span, SpanKind } from '@opentelemetry/api';
import {
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_PARLEY_OUTBOUND_PRIORITY,
  ATTR_PARLEY_OUTBOUND_WAIT_MS,
  ATTR_URL_TEMPLATE,
} from './span-attributes.ts';
import { currentTracer, isTracingOn, markFailed } from './tracer.ts';

/** A platform call the outbound queue holds, from its queueing to its answer. */
export interface PlatformCallSpan {
  /** Makes the call once its rate limits granted it, `waitedMs` after it was queued. */
  run<Result>(call: () => Promise<Result>, waitedMs: number): Promise<Result>;
}

// With tracing off, one shared object: no span, no closure, the call made as it is.
const untraced: PlatformCallSpan = { run: (call) => call() };

/**
 * A span per platform call (`POST /channels/{channel.id}/messages`, `chat.update`), started when the
 * call is queued, so its length shows the rate-limit wait (also `parley.outbound.wait_ms`) and the
 * call itself; a refused call carries its HTTP status where the error says it.
 */
export function startPlatformCall({
  route,
  priority,
}: {
  route: string;
  priority: string;
}): PlatformCallSpan {
  if (!isTracingOn()) return untraced;
  const span = currentTracer().startSpan(route, {
    kind: SpanKind.CLIENT,
    attributes: { [ATTR_URL_TEMPLATE]: route, [ATTR_PARLEY_OUTBOUND_PRIORITY]: priority },
  });
  return {
    async run(call, waitedMs) {
      span.setAttribute(ATTR_PARLEY_OUTBOUND_WAIT_MS, waitedMs);
      try {
        return await call();
      } catch (error) {
        recordStatus(span, error);
        markFailed(span, error);
        throw error;
      } finally {
        span.end();
      }
    },
  };
}

function recordStatus(span: Span, error: unknown): void {
  const status =
    typeof error === 'object' && error !== null ? (error as { status?: unknown }).status : undefined;
  if (typeof status === 'number') span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
}
