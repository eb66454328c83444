import { SpanStatusCode } from '@opentelemetry/api';
import { ATTR_DB_OPERATION_NAME, ATTR_DB_SYSTEM_NAME } from '@opentelemetry/semantic-conventions';
import Keyv from 'keyv';
import { describe, expect, it } from 'vitest';
import { timeStoreCalls } from '../../src/operations/time-store-calls.ts';
import { inSpan } from '../../src/tracing/tracer.ts';
import { useInMemoryTracing } from '../support/in-memory-tracing.ts';

/**
 * Issue 38: a store operation above the threshold is a span of the turn that waited on it; the
 * quick ones leave none. A keyv over a Map whose `get` of one key is slow, timed as parley's stores are.
 */
const exporter = useInMemoryTracing();

const slowMs = 700;

function slowOnOneKey(): Map<string, unknown> {
  const map = new Map<string, unknown>();
  const get = map.get.bind(map);
  return Object.assign(map, {
    get: (key: string) =>
      key.endsWith('slow') ? new Promise((resolve) => setTimeout(() => resolve(get(key)), slowMs)) : get(key),
  });
}

describe('slow store operations', () => {
  it('are spans of the turn, with the store and the operation; quick ones are not', async () => {
    // A threshold far below the slow read and far above a Map's quick one, so a loaded machine cannot blur them.
    const keyv = timeStoreCalls({
      keyv: new Keyv({ store: slowOnOneKey() }),
      backend: 'memory',
      slowOperationMs: 300,
    });
    const turn = await inSpan({ name: 'turn' }, async (span) => {
      await keyv.set('quick', 1);
      await keyv.get('quick');
      await keyv.get('slow');
      return span.spanContext();
    });
    const stores = exporter.getFinishedSpans().filter((span) => span.name.startsWith('store '));
    expect(stores.map((span) => span.name)).toEqual(['store get']);
    const [slow] = stores;
    expect(slow?.parentSpanContext?.spanId).toBe(turn.spanId);
    expect(slow?.attributes).toMatchObject({
      [ATTR_DB_SYSTEM_NAME]: 'memory',
      [ATTR_DB_OPERATION_NAME]: 'get',
    });
    expect((slow?.duration[0] ?? 0) * 1000 + (slow?.duration[1] ?? 0) / 1e6).toBeGreaterThanOrEqual(
      slowMs - 5,
    );
    expect(slow?.status.code).not.toBe(SpanStatusCode.ERROR);
    // Drawn at the times it was measured: inside the turn's span. A span given its times (the store's
    // own measure, in milliseconds) and one timed by the SDK (high resolution) can differ by less than
    // a millisecond at their edges, which says nothing about where the store call was.
    const nanos = (time: readonly [number, number] | undefined) => (time?.[0] ?? 0) * 1e9 + (time?.[1] ?? 0);
    const turnSpan = exporter.getFinishedSpans().find((span) => span.name === 'turn');
    const millisecondNanos = 1e6;
    expect(nanos(slow?.startTime)).toBeGreaterThanOrEqual(nanos(turnSpan?.startTime) - millisecondNanos);
    expect(nanos(slow?.endTime)).toBeLessThanOrEqual(nanos(turnSpan?.endTime) + millisecondNanos);
  });
});
