/**
 * A second process for scheduled-run-links.test.ts: the real scheduler on the BullMQ engine over a
 * real Redis, tracing installed, each due run traced as the bot traces it (`traceScheduledRun`). Its
 * finished spans are written to stdout, one JSON line each, for the test to read.
 */
import type { ExportResult } from '@opentelemetry/core';
import { type ReadableSpan, SimpleSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace';
import pino from 'pino';
import { createBullmqEngine } from '../../src/scheduling/bullmq-engine.ts';
import { createScheduleStore } from '../../src/scheduling/schedule-store.ts';
import { createScheduler } from '../../src/scheduling/scheduler.ts';
import { openStore } from '../../src/state/create-store.ts';
import { createInProcessLock } from '../../src/state/keyed-lock.ts';
import { installTracing } from '../../src/tracing/install-tracing.ts';
import { traceScheduledRun } from '../../src/tracing/turn-spans.ts';

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = process.env.TEST_PREFIX ?? 'parley-test';

const toStdout: SpanExporter = {
  export(spans: ReadableSpan[], done: (result: ExportResult) => void) {
    for (const span of spans) {
      const line = {
        name: span.name,
        traceId: span.spanContext().traceId,
        spanId: span.spanContext().spanId,
        parentSpanId: span.parentSpanContext?.spanId,
        links: span.links.map((link) => ({ ...link.context, attributes: link.attributes })),
      };
      process.stdout.write(`span ${JSON.stringify(line)}\n`);
    }
    done({ code: 0 });
  },
  shutdown: async () => {},
};
const tracing = installTracing({
  serviceName: 'parley-run-process',
  spanProcessors: [new SimpleSpanProcessor({ exporter: toStdout })],
  isContentCaptured: false,
  secrets: [],
});

const logger = pino({ level: 'warn' });
const store = openStore({ storeUrl: redisUrl, logger });
const scheduler = createScheduler({
  store: createScheduleStore({ store: store.namespace(prefix), lock: createInProcessLock(), logger }),
  engine: createBullmqEngine({ redisUrl, prefix, logger, maxAttempts: 1, retryBaseMs: 500, concurrency: 1 }),
  limits: {
    perPlace: 1_000,
    perPerson: 1_000,
    minIntervalMs: 0,
    graceMs: 60_000,
    schedulers: { policy: 'everyone', roleIds: [] },
  },
  logger,
});
await scheduler.start({
  run: ({ record }) =>
    traceScheduledRun({ kind: record.kind, conversationKey: record.conversationKey }, async () => ({
      status: 'ran' as const,
    })),
  async tellSkipped() {},
});
process.stdout.write('ready\n');
process.on('SIGTERM', () => {
  void scheduler.stop().then(async () => {
    await tracing.stop();
    await store.close();
    process.exit(0);
  });
});
