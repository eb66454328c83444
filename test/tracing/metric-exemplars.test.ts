import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HealthServer, startHealthServer } from '../../src/operations/health-server.ts';
import {
  recordQueueWait,
  recordReplyEnded,
  recordReplyFirstText,
  recordStoreOperation,
} from '../../src/operations/metrics.ts';
import { inSpan } from '../../src/tracing/tracer.ts';
import { useInMemoryTracing } from '../support/in-memory-tracing.ts';

/**
 * Issue 38: the latency histograms keep exemplars that name the trace of an observation, shown in
 * OpenMetrics to a scraper that asks for it (Prometheus does by default); any other scraper gets the
 * Prometheus text it got before, exemplars left out. Over HTTP, against the real health server.
 */
const exporter = useInMemoryTracing();
let server: HealthServer;
beforeAll(async () => {
  server = await startHealthServer({
    port: 0,
    readiness: async () => ({ isReady: true, checks: {}, reasons: [], warnings: [] }),
    logger: pino({ level: 'silent' }),
  });
});
afterAll(() => server.close());

// What Prometheus 2.x sends by default (scrape_protocols: OpenMetrics first).
const prometheusAccept =
  'application/openmetrics-text;version=1.0.0;q=0.5,application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2';
// Prometheus 3.x adds the escaping it allows to each type (as its scrape log quotes it,
// prometheus/prometheus#17086).
const prometheus3Accept =
  'application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.6,application/openmetrics-text;version=0.0.1;escaping=allow-utf-8;q=0.5,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.4,text/plain;version=0.0.4;escaping=allow-utf-8;q=0.3,*/*;q=0.2';

async function scrape(accept?: string) {
  const response = await fetch(`http://127.0.0.1:${server.port}/metrics`, {
    headers: accept === undefined ? {} : { accept },
  });
  return { contentType: response.headers.get('content-type'), text: await response.text() };
}

/**
 * An exemplar as OpenMetrics 1.0 writes it after a bucket sample: `# {labels} value timestamp`
 * (openmetrics.md, "Exemplars"), its labels at most 128 characters together.
 */
const exemplarPattern = / # \{trace_id="([0-9a-f]{32})",span_id="([0-9a-f]{16})"\} [0-9.e+-]+ [0-9.]+$/;

describe('exemplars', () => {
  it('a histogram observation made in a span keeps its trace, shown in OpenMetrics only', async () => {
    await inSpan({ name: 'a reply', isRoot: true }, async () => {
      recordReplyFirstText({ platform: 'exemplar-test', seconds: 0.3 });
      recordQueueWait({ priority: 'exemplar-test', waitMs: 40 });
      // A quick store operation is only counted; a slow one (a span of its turn too) leads to the trace.
      recordStoreOperation({ backend: 'exemplar-test', operation: 'get', isOk: true, seconds: 0.002 });
      recordStoreOperation({ backend: 'exemplar-test', operation: 'set', isOk: true, seconds: 0.2 });
    });
    // Outside any span: counted, no exemplar.
    recordReplyFirstText({ platform: 'exemplar-test', seconds: 7 });
    recordReplyEnded({ platform: 'exemplar-test', status: 'complete', finalLagSeconds: undefined });
    const [reply] = exporter.getFinishedSpans();
    const { traceId, spanId } = reply?.spanContext() ?? {};

    const open = await scrape(prometheusAccept);
    expect(open.contentType).toBe('application/openmetrics-text; version=1.0.0; charset=utf-8');
    const lines = open.text.trimEnd().split('\n');
    expect(lines.at(-1)).toBe('# EOF');
    const withExemplars = lines.filter((line) => line.includes(' # {'));
    const firstText = withExemplars.filter((line) =>
      line.startsWith('parley_reply_first_text_seconds_bucket{le="0.5",platform="exemplar-test"}'),
    );
    expect(firstText).toHaveLength(1);
    expect(exemplarPattern.exec(firstText[0] ?? '')?.slice(1)).toEqual([traceId, spanId]);
    expect(
      withExemplars.some((line) => line.startsWith('parley_request_queue_wait_seconds_bucket{le="0.05"')),
    ).toBe(true);
    // The observation outside a span left its bucket without one.
    expect(
      withExemplars.some((line) =>
        line.startsWith('parley_reply_first_text_seconds_bucket{le="10",platform="exemplar-test"}'),
      ),
    ).toBe(false);
    const storeExemplars = withExemplars.filter((line) => line.includes('backend="exemplar-test"'));
    expect(storeExemplars).toHaveLength(1);
    expect(storeExemplars[0]).toMatch(/^parley_store_operation_seconds_bucket\{le="0.25",.*operation="set"/);
    for (const line of withExemplars) expect(line).toMatch(exemplarPattern);
    // OpenMetrics names a counter's family without `_total` and its sample with it.
    expect(lines).toContain('# TYPE parley_replies counter');
    expect(lines).toContain('parley_replies_total{platform="exemplar-test",status="complete"} 1');

    expect((await scrape(prometheus3Accept)).text).toContain(firstText[0]);
    for (const accept of [undefined, '*/*', 'text/plain;version=0.0.4']) {
      const plain = await scrape(accept);
      expect(plain.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
      // As before the OpenMetrics scrape: the counter's own name, no exemplar, no EOF marker.
      expect(plain.text).toContain('# TYPE parley_replies_total counter');
      expect(plain.text).toContain('parley_replies_total{platform="exemplar-test",status="complete"} 1');
      expect(plain.text).not.toContain(' # {');
      expect(plain.text).not.toContain('# EOF');
      expect(plain.text).toContain(
        'parley_reply_first_text_seconds_bucket{le="0.5",platform="exemplar-test"} 1',
      );
    }
  });

  it('scrapes at the same time each get their own format whole', async () => {
    const scrapes = await Promise.all(
      Array.from({ length: 6 }, (_, index) => scrape(index % 2 === 0 ? prometheusAccept : undefined)),
    );
    for (const [index, { contentType, text }] of scrapes.entries()) {
      if (index % 2 === 0) {
        expect(contentType).toContain('application/openmetrics-text');
        expect(text).toContain('# TYPE parley_replies counter');
        expect(text.trimEnd().endsWith('# EOF')).toBe(true);
      } else {
        expect(contentType).toContain('text/plain');
        expect(text).toContain('# TYPE parley_replies_total counter');
        expect(text).not.toContain('# EOF');
      }
    }
  });
});
