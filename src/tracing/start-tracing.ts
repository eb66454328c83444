import type { Config } from '../config.ts';
import type { InstalledTracing } from './install-tracing.ts';

/**
 * Turns tracing on for a run, when the configuration names an OTLP endpoint: the SDK and the
 * exporter are imported here and only here, so a bot without tracing never loads them. Spans are
 * exported in batches over OTLP/HTTP (protobuf-free JSON), off the reply's path.
 */
export async function startTracing({
  tracing,
  secrets,
}: {
  tracing: NonNullable<Config['tracing']>;
  secrets: readonly string[];
}): Promise<InstalledTracing> {
  const [{ installTracing }, { BatchSpanProcessor }, { OTLPTraceExporter }] = await Promise.all([
    import('./install-tracing.ts'),
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/exporter-trace-otlp-http'),
  ]);
  const exporter = new OTLPTraceExporter({ url: tracing.tracesUrl, headers: { ...tracing.headers } });
  return installTracing({
    serviceName: tracing.serviceName,
    spanProcessors: [new BatchSpanProcessor({ exporter })],
    sampler: tracing.sampler,
    samplerRatio: tracing.samplerRatio,
    isContentCaptured: tracing.isContentCaptured,
    secrets,
  });
}
