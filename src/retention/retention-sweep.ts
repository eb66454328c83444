import type { Keyv } from 'keyv';
import type { OverrideStore } from '../administration/override-store.ts';
import type { PlaceSettingsReader } from '../administration/place-settings.ts';
import { type ConversationKey, placeOfConversation } from '../conversation/turn.ts';
import type { Clock } from '../delivery/clock.ts';
import type { Logger } from '../log.ts';
import type { SpaceReclaimed, Store } from '../state/create-store.ts';
import type { KeyedLock } from '../state/keyed-lock.ts';
import type { KeptDataRegistry, SweepContext } from './kept-data.ts';

const dayMs = 24 * 60 * 60_000;

/** What one sweep removed. */
export interface SweepReport {
  /** Entries removed, by kind of kept data. */
  readonly removed: Readonly<Record<string, number>>;
  /** Entries past their time to live the store dropped (SQLite, Postgres; Redis drops its own). */
  readonly expired: number;
  /** SQLite only: the file before and after the incremental vacuum. */
  readonly space: SpaceReclaimed | undefined;
  readonly durationMs: number;
}

export interface RetentionSweep {
  /**
   * Sweeps now, unless another process (or this one) swept within the interval; undefined then.
   * `isForced` sweeps regardless (tests, a bench).
   */
  sweepOnce(options?: { isForced?: boolean }): Promise<SweepReport | undefined>;
  /** Sweeps every `intervalMs`, the first time soon after start; resolves nothing, stops on `stop`. */
  start(): void;
  stop(): void;
}

/** How long after start the first sweep runs: not in the middle of start-up's own work. */
const firstSweepDelayMs = 60_000;
const lastSweepKey = 'last-sweep-at';

/**
 * Removes what is older than each place's HISTORY_RETENTION_DAYS from every registered kind of kept
 * data, then lets the store drop expired entries and give the space back. With several processes
 * on one Redis, the sweep runs under a shared lock and writes when it last ran, so one process
 * sweeps each interval and the others skip.
 */
export function createRetentionSweep({
  registry,
  store,
  places,
  defaultRetentionDays,
  overrides,
  markerKeyv,
  lock,
  clock,
  intervalMs,
  logger,
}: {
  registry: KeptDataRegistry;
  store: Pick<Store, 'dropExpired' | 'reclaimSpace'>;
  places: PlaceSettingsReader;
  /** HISTORY_RETENTION_DAYS of the environment; null: no time limit. */
  defaultRetentionDays: number | null;
  /** Every retention an override sets anywhere, for what places share. */
  overrides: Pick<OverrideStore, 'valuesEverywhere'>;
  /** Where the time of the last sweep is kept (its own namespace, `retention`). */
  markerKeyv: Keyv;
  /** Shared across processes on Redis (the coordination's record lock). */
  lock: KeyedLock;
  clock: Clock;
  intervalMs: number;
  logger: Logger;
}): RetentionSweep {
  let timer: unknown;
  let isStopped = false;

  const contextAt = async (nowMs: number): Promise<SweepContext> => {
    const cutoffByPlace = new Map<string, number | undefined>();
    const cutoffOf = (days: number | null) => (days === null ? undefined : nowMs - days * dayMs);
    const overridden = await overrides.valuesEverywhere('HISTORY_RETENTION_DAYS');
    const limited = [defaultRetentionDays, ...overridden].filter(
      (days): days is number => typeof days === 'number' && days >= 1,
    );
    return {
      nowMs,
      sharedCutoffMs: limited.length === 0 ? undefined : cutoffOf(Math.min(...limited)),
      async cutoffMsFor(conversationKey: ConversationKey) {
        const place = placeOfConversation(conversationKey);
        const placeKey = `${place.platform}:${place.workspace}:${place.channel}`;
        if (!cutoffByPlace.has(placeKey)) {
          cutoffByPlace.set(placeKey, cutoffOf((await places.settingsAt(place)).retentionDays));
        }
        return cutoffByPlace.get(placeKey);
      },
    };
  };

  const sweep = async (nowMs: number): Promise<SweepReport> => {
    const context = await contextAt(nowMs);
    const removed: Record<string, number> = {};
    for (const kept of registry.list()) {
      if (!kept.sweep) continue;
      try {
        removed[kept.name] = await kept.sweep(context);
      } catch (error) {
        // One kind that fails must not keep the others past their time.
        logger.error({ err: error, kept: kept.name }, 'retention sweep: could not sweep one kind of data');
      }
    }
    const expired = await store.dropExpired();
    const space = await store.reclaimSpace();
    return { removed, expired, space, durationMs: clock.now() - nowMs };
  };

  const sweepOnce: RetentionSweep['sweepOnce'] = ({ isForced = false } = {}) =>
    lock.run('retention-sweep', async () => {
      const nowMs = clock.now();
      const lastAt = await markerKeyv.get(lastSweepKey);
      // Another process swept within the interval (a tenth of slack, so timers that drift still sweep).
      if (!isForced && typeof lastAt === 'number' && nowMs - lastAt < intervalMs * 0.9) return undefined;
      // Written first: a process that comes while this one sweeps finds it and skips.
      await markerKeyv.set(lastSweepKey, nowMs);
      const report = await sweep(nowMs);
      logger.info(
        {
          removed: report.removed,
          expired: report.expired,
          ...(report.space
            ? {
                bytesBefore: report.space.bytesBefore,
                bytesAfter: report.space.bytesAfter,
                wasRebuilt: report.space.wasRebuilt,
              }
            : {}),
          durationMs: report.durationMs,
        },
        'retention sweep',
      );
      return report;
    });

  const schedule = (delayMs: number) => {
    if (isStopped) return;
    timer = clock.setTimeout(() => {
      sweepOnce()
        .catch((error: unknown) => logger.error({ err: error }, 'retention sweep failed; trying again later'))
        .finally(() => schedule(intervalMs));
    }, delayMs);
    (timer as { unref?: () => void } | undefined)?.unref?.();
  };

  return {
    sweepOnce,
    start: () => schedule(Math.min(firstSweepDelayMs, intervalMs)),
    stop() {
      isStopped = true;
      if (timer !== undefined) clock.clearTimeout(timer);
    },
  };
}
