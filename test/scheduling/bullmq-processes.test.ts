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

const redisUrl = process.env.REDIS_URL;
const owner = { id: 'ada', name: 'Ada', roleIds: [], isAdmin: true, context: 'server' } as const;

/** Starts one run process and resolves once its worker takes runs. */
function startRunProcess(environment: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(import.meta.dirname, 'bullmq-run-process.ts')], {
    env: { ...process.env, ...environment },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk) => {
      if (String(chunk).includes('ready')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`run process ended early (${code})`)));
  });
}

describe.skipIf(redisUrl === undefined)('BullMQ scheduling over several processes (real Redis)', () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  });

  it.each([2, 3])(
    'with %i processes and one killed (kill -9) in the middle of its runs, every run happens once and none is lost',
    async (processCount) => {
      const url = redisUrl as string;
      const prefix = `parley-test-schedules-${randomUUID()}`;
      const logger = pino({ level: 'warn' });
      const store = openStore({ storeUrl: url, logger });
      const redis = createClient({ url });
      await redis.connect();
      // The side that makes schedules: a scheduler whose engine only adds jobs (it starts no worker).
      const maker = createScheduler({
        store: createScheduleStore({ store: store.namespace(prefix), lock: createInProcessLock(), logger }),
        engine: createBullmqEngine({
          redisUrl: url,
          prefix,
          logger,
          maxAttempts: 3,
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
      try {
        for (let index = 0; index < processCount; index += 1)
          children.push(
            await startRunProcess({
              REDIS_URL: url,
              TEST_PREFIX: prefix,
              RUN_MS: '1500',
              PROCESS_NAME: `p${index}`,
            }),
          );
        const dueAtMs = Date.now() + 2_000;
        const runCount = 12;
        const runs: string[] = [];
        for (let index = 0; index < runCount; index += 1) {
          const made = await maker.create({
            kind: 'place',
            conversationKey: `discord:guild:channel-${index}`,
            owner,
            what: `digest ${index}`,
            whenText: 'soon',
            timing: { kind: 'once', atMs: dueAtMs },
            timeZone: 'UTC',
          });
          if (!('record' in made)) throw new Error(made.problem);
          runs.push(`${made.record.id}@${dueAtMs}`);
        }
        // Kill p0 the moment it has started a run, before it can finish it.
        await vi.waitFor(
          async () =>
            expect(
              (await redis.lRange(`${prefix}:started`, 0, -1)).some((line) => line.endsWith(' p0')),
            ).toBe(true),
          { timeout: 15_000, interval: 20 },
        );
        children[0]?.kill('SIGKILL');
        const killedRuns = (await redis.lRange(`${prefix}:started`, 0, -1))
          .filter((line) => line.endsWith(' p0'))
          .map((line) => line.split(' ')[0]);
        expect(killedRuns.length).toBeGreaterThan(0);

        await vi.waitFor(
          async () => expect(await redis.lLen(`${prefix}:completed`)).toBeGreaterThanOrEqual(runCount),
          { timeout: 30_000, interval: 200 },
        );
        // A moment more, for a duplicate to show if there were one.
        await new Promise((resolve) => setTimeout(resolve, 2_500));
        const completed = (await redis.lRange(`${prefix}:completed`, 0, -1)).map((line) => line.split(' '));
        const completedRuns = completed.map(([run]) => run);
        expect([...completedRuns].sort()).toEqual([...runs].sort());
        // The runs p0 was killed in were taken over and done by the others.
        for (const run of killedRuns) expect(completed.find(([done]) => done === run)?.[1]).not.toBe('p0');
        expect(await redis.lLen(`${prefix}:skipped`)).toBe(0);
      } finally {
        await maker.stop();
        for (const key of await redis.keys(`${prefix}*`)) await redis.del(key);
        redis.destroy();
        await store.close();
      }
    },
    60_000,
  );
});
