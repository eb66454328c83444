import { type SpanContext, SpanKind, trace } from '@opentelemetry/api';
import {
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_PARLEY_APPROVAL_ENDING,
  ATTR_PARLEY_LINK_REASON,
} from './span-attributes.ts';
import { currentTracer, isTracingOn } from './tracer.ts';

/** How a question for approval stopped waiting: a press of Approve or Deny, or nobody in time. */
export type ApprovalWaitEnding = 'pressed' | 'timed-out';

/** An acting tool call's wait for its asker's answer, from the question to its end. */
export interface ApprovalWait {
  end(ending: ApprovalWaitEnding): void;
}

// With tracing off, one shared object: nothing is noted at the question, nothing drawn at its end.
const untracedWait: ApprovalWait = { end: () => {} };

/**
 * The wait for Approve or Deny as an `approval wait {tool}` span. Approvals do not hold the
 * conversation: the reply that asked ends at once (and its trace with it), and the call runs later
 * in a reply of its own, started by the press. So the wait is drawn in the trace where it ends, not
 * in the one where it began: a span of the press (`action tool.approve`), back-dated to when the
 * question was asked, beside the resumed reply that runs the call, and carrying a link to the turn
 * that asked. Added to the asking trace instead, it would arrive minutes or hours after that trace
 * ended (backends and tail samplers assemble a trace within seconds, so it would be dropped or shown
 * as a trace of its own anyway) and outlive its parent. Nothing is open meanwhile: the span is made
 * whole at the end from the times noted here, so a question whose post failed leaves nothing behind.
 * A question nobody answers ends in a trace of its own when it times out, linked the same way.
 */
export function startApprovalWait({ toolName, callId }: { toolName: string; callId: string }): ApprovalWait {
  if (!isTracingOn()) return untracedWait;
  const askedAt = performance.now();
  const asking: SpanContext | undefined = trace.getActiveSpan()?.spanContext();
  return {
    end(ending) {
      const span = currentTracer().startSpan(`approval wait ${toolName}`, {
        kind: SpanKind.INTERNAL,
        startTime: askedAt,
        // A timed-out question ends on a timer, in no one's context: its own trace.
        ...(ending === 'timed-out' ? { root: true } : {}),
        attributes: {
          [ATTR_GEN_AI_TOOL_NAME]: toolName,
          [ATTR_GEN_AI_TOOL_CALL_ID]: callId,
          [ATTR_PARLEY_APPROVAL_ENDING]: ending,
        },
        links:
          asking === undefined
            ? []
            : [{ context: asking, attributes: { [ATTR_PARLEY_LINK_REASON]: 'asked for approval' } }],
      });
      span.end(performance.now());
    },
  };
}
