import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll } from 'vitest';
import { type InstalledTracing, installTracing } from '../../src/tracing/install-tracing.ts';

/**
 * Tracing installed for the test file, its spans kept in memory (content capture off): the exporter
 * the file reads finished spans from.
 */
export function useInMemoryTracing(): InMemorySpanExporter {
  const exporter = new InMemorySpanExporter();
  let tracing: InstalledTracing | undefined;
  beforeAll(() => {
    tracing = installTracing({
      serviceName: 'parley-test',
      spanProcessors: [new SimpleSpanProcessor({ exporter })],
      isContentCaptured: false,
      secrets: [],
    });
  });
  afterAll(() => tracing?.stop());
  return exporter;
}
