import type { ParleyConfig } from '../../bin/platform-adapters.ts';
import type { CommandServices } from '../../commands/define-command.ts';
import { createScheduledRunner } from '../../commands/scheduled-run.ts';
import type { Actor } from '../../src/access/actor.ts';
import type { App } from '../../src/app.ts';
import { createScheduleStore } from '../../src/scheduling/schedule-store.ts';
import { createScheduler, type Scheduler } from '../../src/scheduling/scheduler.ts';
import { createWheelEngine } from '../../src/scheduling/wheel-engine.ts';
import { createInProcessLock } from '../../src/state/keyed-lock.ts';
import { createManualClock, type ManualClock } from './manual-clock.ts';

/** Schedules of a bot under test run by a timer wheel on a clock the test moves. */
export interface ManualScheduling {
  readonly clock: ManualClock;
  readonly scheduler: Scheduler;
  /** The bot's command services with this scheduler, and `now` read from the clock. */
  readonly services: CommandServices;
  /**
   * Makes a channel schedule of `owner` as if they had made it earlier (a daily prompt), then moves
   * the clock to its first run; returns the schedule's id.
   */
  runScheduleOf(request: { owner: Actor; conversationKey: string; what: string }): Promise<string>;
  /** Starts running schedules (the platforms' places are looked up at each run). */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The scheduler `openScheduler` builds for a single process (the bot's settings, its store's
 * `schedules` namespace, one timer wheel), but on a manual clock: a test moves time to a run
 * instead of waiting for it. The adapters get the returned services, so the commands typed on the
 * fake platforms make schedules on this scheduler and its runs answer through the adapters' places.
 */
export function createManualScheduling({
  app,
  config,
  services,
  startMs = Date.now(),
}: {
  app: App;
  config: ParleyConfig;
  services: CommandServices;
  startMs?: number;
}): ManualScheduling {
  const clock = createManualClock(startMs);
  const store = createScheduleStore({
    store: app.store.namespace('schedules'),
    lock: createInProcessLock(),
    logger: app.logger,
  });
  const engine = createWheelEngine({
    store,
    clock,
    logger: app.logger,
    maxAttempts: 3,
    retryBaseMs: 60_000,
    concurrency: config.scheduling.concurrency,
  });
  const scheduler = createScheduler({
    store,
    engine,
    limits: {
      perPlace: config.scheduling.perPlace,
      perPerson: config.scheduling.perPerson,
      minIntervalMs: config.scheduling.minIntervalMs,
      graceMs: config.scheduling.graceMs,
      schedulers: config.scheduling.schedulers,
    },
    logger: app.logger,
    now: () => clock.now(),
  });
  const places = services.platformPlaces;
  const withScheduling: CommandServices = {
    ...services,
    now: () => new Date(clock.now()),
    scheduling: {
      scheduler,
      places,
      timeZone: config.scheduling.timeZone,
      personalTimeZones: app.personalTimeZones,
    },
  };
  return {
    clock,
    scheduler,
    services: withScheduling,
    async runScheduleOf({ owner, conversationKey, what }) {
      const created = await scheduler.create({
        kind: 'place',
        conversationKey,
        owner,
        what,
        whenText: 'every day 09:00',
        timing: { kind: 'cron', pattern: '0 9 * * *' },
        timeZone: 'UTC',
      });
      if ('problem' in created) throw new Error(`could not make the schedule: ${created.problem}`);
      await clock.advanceTo((created.record.nextRunAtMs ?? clock.now()) + 1_000);
      return created.record.id;
    },
    start: () =>
      scheduler.start(
        createScheduledRunner({
          services: withScheduling,
          places,
          replyMaxTokens: config.history.replyMaxTokens,
        }),
      ),
    stop: () => scheduler.stop(),
  };
}
