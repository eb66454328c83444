import {
  type Attributes,
  INVALID_SPAN_CONTEXT,
  type Link,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { ATTR_ERROR_TYPE } from './span-attributes.ts';

/**
 * parley's one tracer, through the OpenTelemetry API alone. Until `installTracing` registers the
 * SDK (only when an OTLP endpoint is configured), a traced step is one boolean test and a call:
 * not even the API's no-op tracer is asked.
 */
const instrumentationName = 'parley';

interface TracingState {
  tracer: Tracer;
  isOn: boolean;
  isContentCaptured: boolean;
  /** Values the content scrubber removes besides what the secret detector finds (the configured secrets). */
  secrets: readonly string[];
}

const state: TracingState = {
  tracer: trace.getTracer(instrumentationName),
  isOn: false,
  isContentCaptured: false,
  secrets: [],
};

/** Called by `installTracing` once a provider is registered (and again with `isOn: false` when it is taken down). */
export function useTracing({
  isOn,
  isContentCaptured,
  secrets,
}: {
  isOn: boolean;
  isContentCaptured: boolean;
  secrets: readonly string[];
}): void {
  // A tracer taken before the provider was registered would keep delegating to the old one.
  state.tracer = trace.getTracer(instrumentationName);
  state.isOn = isOn;
  state.isContentCaptured = isOn && isContentCaptured;
  state.secrets = secrets;
}

/** Whether spans are recorded at all: the places that would do extra work for a span ask first. */
export function isTracingOn(): boolean {
  return state.isOn;
}

/** Whether prompts and completions go on the chat spans (`OTEL_GENAI_CAPTURE_CONTENT=on`). */
export function isContentCaptured(): boolean {
  return state.isContentCaptured;
}

/** The configured secrets, for the content scrubber. */
export function knownSecrets(): readonly string[] {
  return state.secrets;
}

export function currentTracer(): Tracer {
  return state.tracer;
}

/** The span a step is handed when tracing is off: the API's non-recording span, shared. */
const untracedSpan: Span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/** How a span starts: its name, what it is from the start, and whether it begins a trace of its own. */
export interface SpanStart {
  readonly name: string;
  readonly attributes?: Attributes;
  readonly kind?: SpanKind;
  /**
   * A trace of its own even inside another span's context: a scheduled run fires from a timer
   * that a command's span may have set.
   */
  readonly isRoot?: boolean;
  /** Spans of other traces this one follows from (the command that made a schedule, for its run). */
  readonly links?: readonly Link[];
}

/**
 * Runs `work` inside a new span, the active one for everything it awaits (child spans, log lines),
 * and ends it when `work` settles: a throw marks it failed and passes through.
 */
export function inSpan<Result>(
  { name, attributes, kind = SpanKind.INTERNAL, isRoot = false, links }: SpanStart,
  work: (span: Span) => Promise<Result>,
): Promise<Result> {
  // Off, not even the API's no-op tracer is asked: the step runs as it would without tracing.
  if (!state.isOn) return work(untracedSpan);
  return state.tracer.startActiveSpan(
    name,
    {
      kind,
      ...(attributes === undefined ? {} : { attributes }),
      ...(isRoot ? { root: true } : {}),
      ...(links === undefined || links.length === 0 ? {} : { links: [...links] }),
    },
    async (span) => {
      try {
        return await work(span);
      } catch (error) {
        markFailed(span, error);
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/** Error status with the error's kind (a GatewayError's `kind`, else its class name); never its message, which may quote content. */
export function markFailed(span: Span, error: unknown, description?: string): void {
  if (!span.isRecording()) return;
  span.setAttribute(ATTR_ERROR_TYPE, errorTypeOf(error));
  span.setStatus({
    code: SpanStatusCode.ERROR,
    ...(description === undefined ? {} : { message: description }),
  });
}

function errorTypeOf(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const kind = (error as { kind?: unknown }).kind;
    if (typeof kind === 'string') return kind;
    if (error instanceof Error) return error.name;
  }
  return '_OTHER';
}
