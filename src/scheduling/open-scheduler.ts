import { createRequire } from 'node:module';
import type { Config } from '../config.ts';
import { systemClock } from '../delivery/clock.ts';
import type { Logger } from '../log.ts';
import type { Store } from '../state/create-store.ts';
import type { KeyedLock } from '../state/keyed-lock.ts';
import { parseStoreUrl } from '../state/store-url.ts';
import { createScheduleStore } from './schedule-store.ts';
import { createScheduler, type Scheduler } from './scheduler.ts';
import { createWheelEngine } from './wheel-engine.ts';

/**
 * BullMQ and the Redis client it needs (640 modules, about 10 MiB resident) are loaded when the store
 * is Redis, not at start: a bot on SQLite runs its schedules on the timer wheel and never uses them
 * (`npm run bench:memory -- --modules`, issue 24). Synchronously, because opening the scheduler is.
 */
const requireEngine = createRequire(import.meta.url);
const bullmqEngine = () => requireEngine('./bullmq-engine.ts') as typeof import('./bullmq-engine.ts');

/** Tries of a failed run, the first included. */
const maxAttempts = 3;
/** The wait before the second try; each later one waits twice as long. */
const retryBaseMs = 60_000;

/**
 * The scheduler for the store parley runs on: BullMQ's job schedulers on a redis:// store (several
 * processes, each run once), the timer wheel of this process on SQLite or memory. A postgres://
 * store may be shared by several processes that have no Redis to agree through, so it gets none
 * (undefined): the commands then say schedules are not available.
 */
export function openScheduler({
  config,
  store,
  lock,
  logger,
}: {
  config: Pick<Config, 'storeUrl' | 'scheduling'>;
  store: Store;
  lock: KeyedLock;
  logger: Logger;
}): Scheduler | undefined {
  const location = parseStoreUrl({ storeUrl: config.storeUrl });
  const schedules = createScheduleStore({ store: store.namespace('schedules'), lock, logger });
  const limits = {
    perPlace: config.scheduling.perPlace,
    perPerson: config.scheduling.perPerson,
    minIntervalMs: config.scheduling.minIntervalMs,
    graceMs: config.scheduling.graceMs,
    schedulers: config.scheduling.schedulers,
  };
  if (location.kind === 'redis') {
    return createScheduler({
      store: schedules,
      engine: bullmqEngine().createBullmqEngine({
        redisUrl: location.url,
        prefix: 'parley',
        logger,
        maxAttempts,
        retryBaseMs,
        concurrency: config.scheduling.concurrency,
      }),
      limits,
      logger,
    });
  }
  if (store.isShared) {
    logger.warn('schedules need a redis:// store or a single process on SQLite; they are off on this store');
    return undefined;
  }
  return createScheduler({
    store: schedules,
    engine: createWheelEngine({
      store: schedules,
      clock: systemClock,
      logger,
      maxAttempts,
      retryBaseMs,
      concurrency: config.scheduling.concurrency,
    }),
    limits,
    logger,
  });
}
