import { randomBytes } from 'node:crypto';
import type { Actor } from '../access/actor.ts';
import { placeOfConversation } from '../conversation/turn.ts';
import type { Logger } from '../log.ts';
import type { DueRun, DueVerdict, ScheduleEngine } from './schedule-engine.ts';
import type { ScheduleRecord } from './schedule-record.ts';
import { ownerKeyOf, placeKeyOf, type ScheduleStore } from './schedule-store.ts';
import { nextRunAfter, type ScheduleTiming, shortestInterval } from './schedule-timing.ts';

/** What came of one run, as the runner (commands/scheduled-run.ts) reports it. */
export type RunOutcome =
  | { readonly status: 'ran' }
  /** It could not be done this time (the model failed, the place could not be reached): tried again. */
  | { readonly status: 'failed'; readonly reason: string }
  /** The owner's budget cannot pay for it: the schedule is paused, and the place was told why. */
  | { readonly status: 'unpaid'; readonly reason: string }
  /**
   * The owner may not do this now (access refuses them, they left, are timed out or may no longer
   * post there): the schedule is paused, and its owner was told why.
   */
  | { readonly status: 'refused'; readonly reason: string };

/** Does a schedule's run: posts the reminder, or answers the prompt or command in the place. */
export interface ScheduleRunner {
  run(request: {
    record: ScheduleRecord;
    dueAtMs: number;
    attempt: number;
    isLastAttempt: boolean;
  }): Promise<RunOutcome>;
  /** Says in the place (or the DM) that a run was skipped, and why. */
  tellSkipped(request: { record: ScheduleRecord; dueAtMs: number; reason: string }): Promise<void>;
}

export interface SchedulingLimits {
  /** Schedules of one place (channel), reminders not counted. */
  readonly perPlace: number;
  /** Schedules and reminders of one person. */
  readonly perPerson: number;
  /** The shortest time between two runs of a repeating schedule. */
  readonly minIntervalMs: number;
  /** A run found late by more than this at start is skipped with a note; within it, it runs once. */
  readonly graceMs: number;
  /** Who may make schedules in a place besides admins: everyone, or these role ids. */
  readonly schedulers: { readonly policy: 'admins' | 'everyone'; readonly roleIds: readonly string[] };
}

export interface NewSchedule {
  readonly kind: ScheduleRecord['kind'];
  readonly conversationKey: string;
  readonly owner: Actor;
  readonly what: string;
  readonly whenText: string;
  readonly timing: ScheduleTiming;
  readonly timeZone: string;
}

export interface Scheduler {
  /** Which engine runs schedules here. */
  readonly engineName: ScheduleEngine['name'];
  readonly limits: SchedulingLimits;
  /** Whether this person may make schedules in a place (admins, or the roles SCHEDULERS allows). */
  mayScheduleInPlace(actor: Actor): boolean;
  create(request: NewSchedule): Promise<{ readonly record: ScheduleRecord } | { readonly problem: string }>;
  get(id: string): Promise<ScheduleRecord | undefined>;
  pause(id: string, reason?: string): Promise<ScheduleRecord | undefined>;
  resume(id: string): Promise<ScheduleRecord | { readonly problem: string } | undefined>;
  remove(id: string): Promise<boolean>;
  /** The schedules of a place (its channel and threads). */
  listInPlace(conversationKey: string): Promise<ScheduleRecord[]>;
  /** A person's schedules and reminders on this platform. */
  listOfOwner(conversationKey: string, ownerId: string): Promise<ScheduleRecord[]>;
  /**
   * The channel schedules of a whole server or workspace, for the owner's console: a walk of every
   * record (there is no index by server; schedules are few, bounded by SCHEDULES_PER_CHANNEL a channel),
   * asked only when an admin opens the page.
   */
  listInWorkspace(place: { platform: string; workspace: string }): Promise<ScheduleRecord[]>;
  /**
   * Runs an active schedule once now, as its owner through the same runner as a due run (the
   * platform builds the owner's Actor now, `authorize` and the spend guard decide), and records how
   * it went without moving its next run. A refusal or an unpaid run pauses it, as a due run would.
   * Resolves with the outcome, or a problem (no such active schedule, no runner in this process).
   */
  runNow(id: string): Promise<RunOutcome | { readonly problem: string }>;
  /** Starts running schedules with this runner. */
  start(runner: ScheduleRunner): Promise<void>;
  stop(): Promise<void>;
}

export function createScheduler({
  store,
  engine,
  limits,
  logger,
  now = () => Date.now(),
}: {
  store: ScheduleStore;
  engine: ScheduleEngine;
  limits: SchedulingLimits;
  logger: Logger;
  now?: () => number;
}): Scheduler {
  const log = logger.child({ component: 'scheduler', engine: engine.name });
  let runner: ScheduleRunner | undefined;

  /** Writes what a run did onto the record as it is now (it may have been paused meanwhile). */
  const afterRun = async ({
    scheduleId,
    dueAtMs,
    lastRun,
    pause,
  }: {
    scheduleId: string;
    dueAtMs: number;
    lastRun: NonNullable<ScheduleRecord['lastRun']>;
    pause?: string;
  }) => {
    const current = await store.get(scheduleId);
    if (current === undefined) return;
    const nextRunAtMs = nextRunAfter({
      timing: current.timing,
      timeZone: current.timeZone,
      afterMs: Math.max(dueAtMs, now()),
    });
    if (nextRunAtMs === undefined && pause === undefined) {
      // A single run is done: a reminder leaves no record behind.
      await engine.disarm(current);
      await store.remove(scheduleId);
      return;
    }
    const updated: ScheduleRecord = {
      ...current,
      lastRun,
      runCount: current.runCount + (lastRun.status === 'ran' ? 1 : 0),
      ...(nextRunAtMs === undefined ? {} : { nextRunAtMs }),
      ...(pause === undefined ? {} : { state: 'paused' as const, pausedReason: pause }),
    };
    if (nextRunAtMs === undefined) delete (updated as { nextRunAtMs?: number }).nextRunAtMs;
    await store.put(updated);
    if (pause !== undefined) await engine.disarm(updated);
    else if (!engine.repeatsByItself) await engine.arm(updated);
  };

  const handleDue = async (due: DueRun): Promise<DueVerdict> => {
    const active = runner;
    if (active === undefined) return 'retry';
    const record = await store.get(due.scheduleId);
    if (record === undefined || record.state !== 'active') return 'done';
    // The wheel may hold a run the record has moved past (a resume re-armed it): only the named run goes.
    if (!engine.repeatsByItself && due.attempt === 1 && record.nextRunAtMs !== due.dueAtMs) return 'done';
    const lateByMs = now() - due.dueAtMs;
    if (due.attempt === 1 && lateByMs > limits.graceMs) {
      const reason = 'parley was not running at that time';
      log.info({ scheduleId: record.id, dueAtMs: due.dueAtMs, lateByMs }, 'a missed run is skipped');
      await active.tellSkipped({ record, dueAtMs: due.dueAtMs, reason }).catch((error: unknown) => {
        log.warn({ err: error, scheduleId: record.id }, 'could not say that a run was skipped');
      });
      await afterRun({
        scheduleId: record.id,
        dueAtMs: due.dueAtMs,
        lastRun: { atMs: now(), status: 'skipped', note: reason },
      });
      return 'done';
    }
    const isLastAttempt = due.attempt >= due.maxAttempts;
    const outcome = await active
      .run({ record, dueAtMs: due.dueAtMs, attempt: due.attempt, isLastAttempt })
      .catch((error: unknown): RunOutcome => {
        log.error({ err: error, scheduleId: record.id }, 'a scheduled run threw');
        return { status: 'failed', reason: 'something went wrong' };
      });
    log.info(
      { scheduleId: record.id, dueAtMs: due.dueAtMs, attempt: due.attempt, status: outcome.status },
      'scheduled run',
    );
    if (outcome.status === 'failed' && !isLastAttempt) return 'retry';
    await afterRun({
      scheduleId: record.id,
      dueAtMs: due.dueAtMs,
      lastRun: {
        atMs: now(),
        status: outcome.status,
        ...(outcome.status === 'ran' ? {} : { note: outcome.reason }),
      },
      ...(outcome.status === 'unpaid' || outcome.status === 'refused' ? { pause: outcome.reason } : {}),
    });
    return 'done';
  };

  /** Writes a run done out of turn onto the record: its next run stays where it was. */
  const afterRunNow = async (scheduleId: string, outcome: RunOutcome) => {
    const current = await store.get(scheduleId);
    if (current === undefined) return;
    const isPaused = outcome.status === 'unpaid' || outcome.status === 'refused';
    const updated: ScheduleRecord = {
      ...current,
      lastRun: {
        atMs: now(),
        status: outcome.status,
        ...(outcome.status === 'ran' ? {} : { note: outcome.reason }),
      },
      runCount: current.runCount + (outcome.status === 'ran' ? 1 : 0),
      ...(isPaused ? { state: 'paused' as const, pausedReason: outcome.reason } : {}),
    };
    await store.put(updated);
    if (isPaused) await engine.disarm(updated);
  };

  return {
    engineName: engine.name,
    limits,
    mayScheduleInPlace: (actor) =>
      actor.isAdmin ||
      limits.schedulers.policy === 'everyone' ||
      actor.roleIds.some((roleId) => limits.schedulers.roleIds.includes(roleId)),
    async create(request) {
      const createdAtMs = now();
      if (request.timing.kind === 'cron') {
        const intervalMs = shortestInterval({
          pattern: request.timing.pattern,
          timeZone: request.timeZone,
          fromMs: createdAtMs,
        });
        if (intervalMs < limits.minIntervalMs)
          return {
            problem: `that repeats too often: runs must be at least ${Math.round(limits.minIntervalMs / 60_000)} minutes apart here`,
          };
      }
      const nextRunAtMs = nextRunAfter({
        timing: request.timing,
        timeZone: request.timeZone,
        afterMs: createdAtMs,
      });
      if (nextRunAtMs === undefined) return { problem: 'that time never comes' };
      const record: ScheduleRecord = {
        id: randomBytes(6).toString('base64url').replaceAll(/[-_]/g, 'x'),
        kind: request.kind,
        conversationKey: request.conversationKey,
        // Who, never what they may do: each run asks the platform again.
        owner: { id: request.owner.id, name: request.owner.name },
        what: request.what,
        whenText: request.whenText,
        timing: request.timing,
        timeZone: request.timeZone,
        state: 'active',
        nextRunAtMs,
        createdAtMs,
        runCount: 0,
      };
      const refusal = await store.add(record, ({ inPlace, ofOwner }) => {
        if (request.kind === 'place' && inPlace >= limits.perPlace)
          return `this channel has ${inPlace} schedules, the most it may have; delete one with /schedules first`;
        if (ofOwner >= limits.perPerson)
          return `you have ${ofOwner} schedules and reminders, the most one person may have; delete one with /schedules first`;
        return undefined;
      });
      if (refusal !== undefined) return { problem: refusal };
      await engine.arm(record);
      log.info({ scheduleId: record.id, kind: record.kind, nextRunAtMs }, 'schedule created');
      return { record };
    },
    get: (id) => store.get(id),
    async pause(id, reason) {
      const record = await store.get(id);
      if (record === undefined) return undefined;
      const paused: ScheduleRecord = {
        ...record,
        state: 'paused',
        ...(reason === undefined ? {} : { pausedReason: reason }),
      };
      if (reason === undefined) delete (paused as { pausedReason?: string }).pausedReason;
      await store.put(paused);
      await engine.disarm(paused);
      return paused;
    },
    async resume(id) {
      const record = await store.get(id);
      if (record === undefined) return undefined;
      const nextRunAtMs = nextRunAfter({ timing: record.timing, timeZone: record.timeZone, afterMs: now() });
      if (nextRunAtMs === undefined) return { problem: 'its time has passed; make a new reminder instead' };
      const { pausedReason: _dropped, ...rest } = record;
      const resumed: ScheduleRecord = { ...rest, state: 'active', nextRunAtMs };
      await store.put(resumed);
      await engine.arm(resumed);
      return resumed;
    },
    async remove(id) {
      const record = await store.get(id);
      if (record === undefined) return false;
      await engine.disarm(record);
      await store.remove(id);
      return true;
    },
    listInPlace: (conversationKey) => store.listInPlace(placeKeyOf(conversationKey)),
    listOfOwner: (conversationKey, ownerId) =>
      store.listOfOwner(ownerKeyOf({ conversationKey, owner: { id: ownerId } as ScheduleRecord['owner'] })),
    async listInWorkspace({ platform, workspace }) {
      const found: ScheduleRecord[] = [];
      for await (const record of store.all()) {
        const place = placeOfConversation(record.conversationKey);
        if (record.kind === 'place' && place.platform === platform && place.workspace === workspace) {
          found.push(record);
        }
      }
      return found.sort(
        (first, second) => (first.nextRunAtMs ?? Infinity) - (second.nextRunAtMs ?? Infinity),
      );
    },
    async runNow(id) {
      const active = runner;
      if (active === undefined) return { problem: 'schedules do not run in this process' };
      const record = await store.get(id);
      if (record === undefined || record.state !== 'active')
        return { problem: 'that schedule is not active' };
      const outcome = await active
        .run({ record, dueAtMs: now(), attempt: 1, isLastAttempt: true })
        .catch((error: unknown): RunOutcome => {
          log.error({ err: error, scheduleId: record.id }, 'a run asked for now threw');
          return { status: 'failed', reason: 'something went wrong' };
        });
      log.info({ scheduleId: record.id, status: outcome.status }, 'scheduled run, asked for now');
      await afterRunNow(record.id, outcome);
      return outcome;
    },
    async start(withRunner) {
      runner = withRunner;
      await engine.start(handleDue);
    },
    async stop() {
      await engine.stop();
    },
  };
}
