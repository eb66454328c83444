import { context, diag, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  type Sampler,
  type SpanProcessor,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { TraceSamplerName } from '../environment/tracing-settings.ts';
import { useTracing } from './tracer.ts';

/** The SDK, registered as the API's global provider: what `stop` takes down again. */
export interface InstalledTracing {
  /** Sends what is still buffered, then unregisters the provider: spans are no-ops again. */
  stop(): Promise<void>;
}

export interface InstallTracingOptions {
  readonly serviceName: string;
  /** Where finished spans go: a batch to the OTLP exporter in a run, the in-memory exporter in tests. */
  readonly spanProcessors: readonly SpanProcessor[];
  readonly sampler?: TraceSamplerName;
  /** The share kept by the ratio samplers. */
  readonly samplerRatio?: number;
  readonly isContentCaptured: boolean;
  /** The configured secrets, scrubbed from captured content besides what the detector finds. */
  readonly secrets: readonly string[];
}

/**
 * Registers the OpenTelemetry SDK behind the API: a provider, the async context (so a span is the
 * parent of whatever its work awaits) and the W3C Trace Context propagator (`traceparent` to MCP
 * servers). Loaded only when tracing is configured (start-tracing.ts imports this file lazily).
 */
export function installTracing({
  serviceName,
  spanProcessors,
  sampler = 'parentbased_always_on',
  samplerRatio = 1,
  isContentCaptured,
  secrets,
}: InstallTracingOptions): InstalledTracing {
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName }),
    sampler: samplerOf(sampler, samplerRatio),
    spanProcessors: [...spanProcessors],
  });
  trace.setGlobalTracerProvider(provider);
  useTracing({ isOn: true, isContentCaptured, secrets });
  return {
    async stop() {
      // A collector that does not answer must not hold the shutdown: the last spans are given
      // this long, then let go, and the failure is said (reportTracingProblems puts it in the log).
      await untilDone(provider.shutdown(), stopDeadlineMs).catch((error: unknown) => {
        diag.warn(
          `the last spans could not be sent: ${error instanceof Error ? error.message : String(error)}`,
        );
      });
      trace.disable();
      propagation.disable();
      context.disable();
      useTracing({ isOn: false, isContentCaptured: false, secrets: [] });
    },
  };
}

/** How long `stop` waits for the last spans to be sent. */
const stopDeadlineMs = 3_000;

async function untilDone(work: Promise<void>, deadlineMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${deadlineMs} ms`)), deadlineMs);
    timer.unref();
  });
  try {
    await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

// OTEL_TRACES_SAMPLER's values, as the SDK environment specification defines them.
function samplerOf(name: TraceSamplerName, ratio: number): Sampler {
  const ratioSampler = new TraceIdRatioBasedSampler(ratio);
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratioSampler;
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratioSampler });
  }
}
