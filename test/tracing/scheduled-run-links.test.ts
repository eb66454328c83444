import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createClient } from '@redis/client';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createBullmqEngine } from '../../src/scheduling/bullmq-engine.ts';
import { createScheduleStore } from '../../src/scheduling/schedule-store.ts';
import { createScheduler } from '../../src/scheduling/scheduler.ts';
import { openStore } from '../../src/state/create-store.ts';
import { createInProcessLock } from '../../src/state/keyed-lock.ts';
import { ATTR_PARLEY_LINK_REASON } from '../../src/tracing/span-attributes.ts';
import { inSpan } from '../../src/tracing/tracer.ts';
import { useInMemoryTracing } from '../support/in-memory-tracing.ts';

/**
 * Issue 38, across processes: a schedule made in one process (this one, inside a command's span) is
 * run by BullMQ in another (scheduled-run-process.ts); the run is a trace of its own that links to
 * the command, its context carried in the job's data.
 */
const exporter = useInMemoryTracing();
const redisUrl = process.env.REDIS_URL;
const owner = { id: 'ada', name: 'Ada', roleIds: [], isAdmin: true, context: 'server' } as const;

interface PrintedSpan {
  readonly name: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly links: Array<{ traceId: string; spanId: string; attributes?: Record<string, unknown> }>;
}

let child: ChildProcess | undefined;
afterEach(() => {
  if (child?.exitCode === null) child.kill('SIGKILL');
});

/** Starts the run process; its printed spans collect in `spans`. */
function startRunProcess(environment: Record<string, string>, spans: PrintedSpan[]): Promise<ChildProcess> {
  const started = spawn(process.execPath, [join(import.meta.dirname, 'scheduled-run-process.ts')], {
    env: { ...process.env, ...environment },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let pending = '';
  return new Promise((resolve, reject) => {
    started.stdout?.on('data', (chunk) => {
      pending += String(chunk);
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (line === 'ready') resolve(started);
        else if (line.startsWith('span ')) spans.push(JSON.parse(line.slice('span '.length)));
      }
    });
    started.once('exit', (code) => reject(new Error(`run process ended early (${code})`)));
  });
}

describe.skipIf(redisUrl === undefined)(
  redisUrl === undefined
    ? 'a BullMQ run links to its command (skipped: REDIS_URL is not set; run with REDIS_URL=redis://127.0.0.1:6379)'
    : 'a BullMQ run links to its command',
  () => {
    it('the run, in the other process, is a trace of its own linked to the command that made its schedule', async () => {
      const url = redisUrl as string;
      const prefix = `parley-test-run-links-${randomUUID()}`;
      const logger = pino({ level: 'warn' });
      const store = openStore({ storeUrl: url, logger });
      const redis = createClient({ url });
      await redis.connect();
      // This process only makes schedules: its engine adds jobs and starts no worker.
      const maker = createScheduler({
        store: createScheduleStore({ store: store.namespace(prefix), lock: createInProcessLock(), logger }),
        engine: createBullmqEngine({
          redisUrl: url,
          prefix,
          logger,
          maxAttempts: 1,
          retryBaseMs: 500,
          concurrency: 1,
        }),
        limits: {
          perPlace: 1_000,
          perPerson: 1_000,
          minIntervalMs: 0,
          graceMs: 60_000,
          schedulers: { policy: 'everyone', roleIds: [] },
        },
        logger,
      });
      const printed: PrintedSpan[] = [];
      try {
        child = await startRunProcess({ REDIS_URL: url, TEST_PREFIX: prefix }, printed);
        const made = await inSpan({ name: 'command remind', isRoot: true }, () =>
          maker.create({
            kind: 'reminder',
            conversationKey: 'discord:guild:channel-1',
            owner,
            what: 'stretch',
            whenText: 'soon',
            timing: { kind: 'once', atMs: Date.now() + 1_000 },
            timeZone: 'UTC',
          }),
        );
        if (!('record' in made)) throw new Error(made.problem);
        const command = exporter.getFinishedSpans().find((span) => span.name === 'command remind');
        const run = await vi.waitFor(
          () => {
            const found = printed.find((span) => span.name === 'scheduled_run reminder');
            if (found === undefined) throw new Error('no run yet');
            return found;
          },
          { timeout: 20_000, interval: 100 },
        );
        expect(run.parentSpanId).toBeUndefined();
        expect(run.traceId).not.toBe(command?.spanContext().traceId);
        expect(run.links).toEqual([
          expect.objectContaining({
            traceId: command?.spanContext().traceId,
            spanId: command?.spanContext().spanId,
            attributes: { [ATTR_PARLEY_LINK_REASON]: 'scheduled by' },
          }),
        ]);
      } finally {
        child?.kill('SIGTERM');
        await maker.stop();
        for (const key of await redis.keys(`${prefix}*`)) await redis.del(key);
        redis.destroy();
        await store.close();
      }
    }, 40_000);
  },
);
