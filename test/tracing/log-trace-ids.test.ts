import { describe, expect, it } from 'vitest';
import { inSpan } from '../../src/tracing/tracer.ts';
import { createCapturedLogger } from '../support/capture-logger.ts';
import { useInMemoryTracing } from '../support/in-memory-tracing.ts';

/** Issue 38: a log line written inside a span carries its trace_id and span_id, when tracing is on. */
const _exporter = useInMemoryTracing();

const lines = (output: string) =>
  output
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));

describe('log lines and spans', () => {
  it('a traced logger writes the ids of the span a line is written in, and none outside one', async () => {
    const { logger, output } = createCapturedLogger([], { isTraced: true });
    logger.info('before');
    const ids = await inSpan({ name: 'outer' }, async (outer) => {
      await new Promise((resolve) => setImmediate(resolve));
      logger.child({ component: 'engine' }).info('inside');
      return outer.spanContext();
    });
    const [before, inside] = lines(output());
    expect(before).not.toHaveProperty('trace_id');
    expect(before).not.toHaveProperty('span_id');
    expect(inside).toMatchObject({ msg: 'inside', trace_id: ids.traceId, span_id: ids.spanId });
  });

  it('a logger made without tracing writes no ids, even inside a span', async () => {
    const { logger, output } = createCapturedLogger();
    await inSpan({ name: 'outer' }, async () => logger.info('inside'));
    expect(lines(output())[0]).not.toHaveProperty('trace_id');
  });
});
