import { AsyncResource } from 'node:async_hooks';
import type { KeyedLock, RunOptions, TurnPlace } from './keyed-lock.ts';

export interface OrderedLockOptions {
  /** The lock the turns take once their place comes: in-process, or shared on Redis. */
  readonly lock: KeyedLock;
  /**
   * How long a place taken with `reserve` holds back the turns after it while its own turn does not
   * come (work before the lock that hung): then it gives way, and `onPlaceGivenUp` says so.
   */
  readonly maxReservationMs?: number;
  readonly onPlaceGivenUp?: (key: string) => void;
  readonly nowMs?: () => number;
}

/** A place in a key's line: a turn that arrived, whose task is known once it reaches the lock. */
interface Entry {
  readonly orderMicros: number;
  /** Breaks ties between equal orders: the earlier arrival first. */
  readonly sequence: number;
  /** Set once the turn reaches `run`; a place without it holds back every entry after it. */
  start: (() => void) | undefined;
  expiry: ReturnType<typeof setTimeout> | undefined;
}

/**
 * Keeps the turns of one key in the platform's order (Discord's snowflake, Slack's `ts`) on their
 * way into `lock`, whatever each met before it got there. A turn takes its place the moment its event
 * arrives (`reserve`), before the look-ups, access checks and dedupe that may take one turn longer
 * than the next; the turns after it wait until it reaches the lock or gives up its place. Turns that
 * reach `run` together enter the lock in the order they were sent, so the in-process lock (first
 * come, first served) serves them in that order, and a shared lock queues them there too.
 */
export function createOrderedLock({
  lock,
  maxReservationMs = 30_000,
  onPlaceGivenUp,
  nowMs = Date.now,
}: OrderedLockOptions): KeyedLock {
  const linesByKey = new Map<string, Entry[]>();
  /** Turns that reached `run` and are still waiting for their place, per key. */
  const waitingByKey = new Map<string, number>();
  let sequence = 0;

  const insert = (key: string, entry: Entry): void => {
    let line = linesByKey.get(key);
    if (line === undefined) {
      line = [];
      linesByKey.set(key, line);
    }
    const index = line.findIndex(
      (other) =>
        other.orderMicros > entry.orderMicros ||
        (other.orderMicros === entry.orderMicros && other.sequence > entry.sequence),
    );
    if (index === -1) line.push(entry);
    else line.splice(index, 0, entry);
  };

  const remove = (key: string, entry: Entry): void => {
    const line = linesByKey.get(key);
    if (line === undefined) return;
    const index = line.indexOf(entry);
    if (index !== -1) line.splice(index, 1);
    if (entry.expiry !== undefined) clearTimeout(entry.expiry);
    if (line.length === 0) linesByKey.delete(key);
  };

  /** Lets in every turn at the head of the line whose task is known, in order. */
  const admit = (key: string): void => {
    const line = linesByKey.get(key);
    while (line !== undefined && line.length > 0) {
      const head = line[0] as Entry;
      if (head.start === undefined) return;
      line.shift();
      if (head.expiry !== undefined) clearTimeout(head.expiry);
      head.start();
    }
    if (line?.length === 0) linesByKey.delete(key);
  };

  return {
    reserve(key: string, orderMicros: number): TurnPlace {
      sequence += 1;
      const entry: Entry = { orderMicros, sequence, start: undefined, expiry: undefined };
      entry.expiry = setTimeout(() => {
        if (entry.start !== undefined) return;
        remove(key, entry);
        onPlaceGivenUp?.(key);
        admit(key);
      }, maxReservationMs);
      entry.expiry.unref?.();
      insert(key, entry);
      return {
        release() {
          if (entry.start !== undefined) return;
          remove(key, entry);
          admit(key);
        },
      };
    },

    run<T>(key: string, task: () => Promise<T>, options: RunOptions = {}): Promise<T> {
      waitingByKey.set(key, (waitingByKey.get(key) ?? 0) + 1);
      return new Promise<T>((resolve, reject) => {
        // Bound to this turn's async context: the turn ahead of it may be what lets it in, and its task
        // must not run as part of that turn (its spans and log lines would carry the other's trace).
        const start = AsyncResource.bind(() => {
          const remaining = (waitingByKey.get(key) ?? 1) - 1;
          if (remaining === 0) waitingByKey.delete(key);
          else waitingByKey.set(key, remaining);
          lock.run(key, task, options).then(resolve, reject);
        });
        // The place this turn took when it arrived, if it took one: the first unclaimed one of its order.
        const reserved =
          options.orderMicros === undefined
            ? undefined
            : linesByKey
                .get(key)
                ?.find((entry) => entry.start === undefined && entry.orderMicros === options.orderMicros);
        if (reserved !== undefined) {
          reserved.start = start;
          admit(key);
          return;
        }
        sequence += 1;
        const orderMicros = options.orderMicros ?? nowMs() * 1000;
        insert(key, { orderMicros, sequence, start, expiry: undefined });
        admit(key);
      });
    },

    pendingCount(key: string): number {
      return lock.pendingCount(key) + (waitingByKey.get(key) ?? 0);
    },
  };
}
