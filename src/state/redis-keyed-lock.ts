import { randomUUID } from 'node:crypto';
import type { Logger } from '../log.ts';
import { handedOverTraceContext, linkHandedOverTrace } from '../tracing/trace-handover.ts';
import type { KeyedLock, RunOptions } from './keyed-lock.ts';
import {
  enqueueScript,
  extendScript,
  leaveQueueScript,
  queueIdleLifetimeMs,
  releaseScript,
  tryAcquireScript,
} from './redis-lock-scripts.ts';

/** The Redis commands the lock needs; @redis/client's `eval` and `publish` have these shapes. */
export interface RedisLockClient {
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  publish(channel: string, message: string): Promise<unknown>;
}

/** Calls `listener` with every message published on `channel`; resolves to an unsubscribe. */
export type RedisSubscribe = (
  channel: string,
  listener: (message: string) => void,
) => Promise<() => Promise<void>>;

export interface RedisKeyedLockOptions {
  /** The connected client; called for every command, so a reconnecting client can be handed out. */
  readonly redis: () => Promise<RedisLockClient>;
  /**
   * Wakes waiters the moment a lock is released anywhere, instead of at their next poll. Optional:
   * without it waiters still find the lock free at their next poll.
   */
  readonly subscribe?: RedisSubscribe;
  /** Keeps these keys apart from other users of the same Redis (tests use a unique one). */
  readonly prefix: string;
  /**
   * How long a lock lives without being extended. The holder extends it every third of this while
   * its task runs, so only a holder that died (or stalled that long) loses it: this is how long a
   * conversation waits after its process was killed mid-reply.
   */
  readonly lockTtlMs?: number;
  /** How long a waiter stays queued without polling; a dead waiter is dropped after this. */
  readonly waiterTtlMs?: number;
  /** How often a waiter asks again when no release message woke it. */
  readonly pollIntervalMs?: number;
  /**
   * How long after a turn was sent (its `orderMicros`) it may take the lock: an earlier turn of the
   * same conversation that reached another process may still be on its way to the queue. Events
   * usually reach a bot later than this anyway, so it rarely adds a wait.
   */
  readonly reorderWindowMs?: number;
  readonly logger: Logger;
}

/** A KeyedLock several processes share, that can also be told to stop listening. */
export interface SharedLock extends KeyedLock {
  close(): Promise<void>;
}

interface KeyState {
  /** Tasks of this key started here and not settled, the running one included. */
  pendingCount: number;
  /** Holders and waiters of other processes ahead of this process's waiters, at the last poll. */
  othersAhead: number;
  /** Wakes this process's waiters of the key so they poll at once. */
  readonly wakers: Set<() => void>;
}

/**
 * A KeyedLock on Redis for several bot processes: one task per key at a time across all of them, in
 * the order the tasks arrived at Redis, and a lock whose process died frees itself after `lockTtlMs`.
 */
export function createRedisKeyedLock({
  redis,
  subscribe,
  prefix,
  lockTtlMs = 30_000,
  waiterTtlMs = 10_000,
  pollIntervalMs = 250,
  reorderWindowMs = 200,
  logger,
}: RedisKeyedLockOptions): SharedLock {
  // Waiter ids start with the process's own id, so a waiter can tell its process's tasks from others'.
  const processPrefix = `${randomUUID()}:`;
  let waiterCount = 0;
  /**
   * The ids of this process's tasks from joining a queue until their lock is released: a lock held
   * by any other id of this process belongs to a task that is over.
   */
  const activeIds = new Set<string>();
  const statesByKey = new Map<string, KeyState>();
  const releaseChannel = `${prefix}:released`;
  const wake = (key: string): void => {
    for (const waker of statesByKey.get(key)?.wakers ?? []) waker();
  };
  // Subscribed at the first wait, not at start: a subscriber needs a connection of its own, and a
  // bot whose conversations never contend never needs it.
  let unsubscribing: Promise<(() => Promise<void>) | undefined> | undefined;
  const ensureSubscribed = () => {
    unsubscribing ??= subscribe?.(releaseChannel, wake).catch((error: unknown) => {
      logger.warn({ err: error }, 'lock release messages unavailable; waiters poll instead');
      return undefined;
    });
  };
  const keysOf = (key: string) => ({
    lock: `${prefix}:lock:${key}`,
    queue: `${prefix}:queue:${key}`,
    heartbeats: `${prefix}:waiters:${key}`,
    // The trace context of the task that last released the lock, for the one that waited for it.
    handover: `${prefix}:handover:${key}`,
  });

  const acquire = async (key: string, state: KeyState, orderMicros: number | undefined): Promise<string> => {
    const keys = keysOf(key);
    waiterCount += 1;
    const waiterId = `${processPrefix}${waiterCount}`;
    activeIds.add(waiterId);
    const client = await redis();
    const enqueue = () =>
      client.eval(enqueueScript, {
        keys: [keys.queue, keys.heartbeats],
        arguments: [
          waiterId,
          String(waiterTtlMs),
          String(queueIdleLifetimeMs),
          orderMicros === undefined ? '' : String(orderMicros),
        ],
      });
    const notBeforeMicros = orderMicros === undefined ? 0 : orderMicros + reorderWindowMs * 1000;
    const enqueuedAtMicros = Number(await enqueue());
    if (orderMicros !== undefined && enqueuedAtMicros - orderMicros > reorderWindowMs * 1000) {
      // An earlier turn of the conversation that took as long to get here may be answered after this one.
      logger.info(
        { key, lateByMs: Math.round((enqueuedAtMicros - orderMicros) / 1000) - reorderWindowMs },
        'a turn reached its conversation queue after the reorder window',
      );
    }
    let wakeNow: () => void = () => {};
    const waker = () => wakeNow();
    state.wakers.add(waker);
    // Whether another task held the lock while this one waited: then it was handed over to this one.
    let hasWaitedForHolder = false;
    try {
      for (;;) {
        const answer = (await (
          await redis()
        ).eval(tryAcquireScript, {
          keys: [keys.lock, keys.queue, keys.heartbeats, keys.handover],
          arguments: [
            waiterId,
            String(lockTtlMs),
            String(waiterTtlMs),
            processPrefix,
            String(notBeforeMicros),
          ],
        })) as [number, (number | string)?, number?, string?, string?];
        if (answer[0] === 1) {
          state.othersAhead = 0;
          if (hasWaitedForHolder) linkHandedOverTrace(String(answer[1] ?? ''));
          return waiterId;
        }
        if (answer[0] === -1) {
          // Dropped as dead: this process did not poll for waiterTtlMs (a stalled event loop).
          logger.warn({ key }, 'a lock waiter was dropped from the queue and queues again at the end');
          await enqueue();
          continue;
        }
        if (await isFreedFromFinishedTask({ key, holder: answer[3], head: answer[4] })) continue;
        hasWaitedForHolder ||= (answer[3] ?? '') !== '';
        state.othersAhead = Number(answer[1] ?? 0);
        ensureSubscribed();
        const reorderWaitMs = Math.ceil((answer[2] ?? 0) / 1000);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(
            resolve,
            reorderWaitMs > 0 ? Math.min(reorderWaitMs, pollIntervalMs) : pollIntervalMs,
          );
          wakeNow = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    } catch (error) {
      activeIds.delete(waiterId);
      await (await redis())
        .eval(leaveQueueScript, { keys: [keys.queue, keys.heartbeats], arguments: [waiterId] })
        .catch(() => undefined);
      throw error;
    } finally {
      state.wakers.delete(waker);
    }
  };

  /**
   * A lock held by a task of this process that is over is free: its release failed (the store did
   * not answer then), or Redis started again from a dump saved while the task ran (issue 34, item
   * 10: the next turn of the conversation waited out lockTtlMs, 30 s, in silence). The same for a
   * waiter of such a task at the head of the queue (it would block until its heartbeat lapsed). Only
   * this process can know its own task is over; another process's still wait for their ttl.
   */
  const isFreedFromFinishedTask = async ({
    key,
    holder,
    head,
  }: {
    key: string;
    holder: string | undefined;
    head: string | undefined;
  }): Promise<boolean> => {
    const isOver = (id: string | undefined): id is string =>
      id?.startsWith(processPrefix) === true && !activeIds.has(id);
    if (!isOver(holder) && !isOver(head)) return false;
    logger.warn(
      { key },
      'a conversation lock or place in line of a task of this process that is over was freed',
    );
    const keys = keysOf(key);
    const client = await redis();
    if (isOver(holder)) await client.eval(releaseScript, { keys: [keys.lock], arguments: [holder] });
    if (isOver(head)) {
      await client.eval(leaveQueueScript, { keys: [keys.queue, keys.heartbeats], arguments: [head] });
    }
    return true;
  };

  const keepExtending = (key: string, token: string): (() => void) => {
    const timer = setInterval(
      () => {
        void redis()
          .then((client) =>
            client.eval(extendScript, { keys: [keysOf(key).lock], arguments: [token, String(lockTtlMs)] }),
          )
          .then((extended) => {
            if (extended !== 1)
              logger.error({ key }, 'a conversation lock expired while its task was running');
          })
          .catch((error: unknown) =>
            logger.warn({ err: error, key }, 'could not extend a conversation lock'),
          );
      },
      Math.max(1, Math.floor(lockTtlMs / 3)),
    );
    return () => clearInterval(timer);
  };

  const release = async (key: string, token: string): Promise<void> => {
    const client = await redis();
    const keys = keysOf(key);
    // With tracing on, the releasing turn's trace context is left for the turn that waits (trace-handover.ts).
    await client.eval(releaseScript, {
      keys: [keys.lock, keys.handover],
      arguments: [token, handedOverTraceContext(), String(lockTtlMs)],
    });
    await client.publish(releaseChannel, key);
  };

  return {
    async run<T>(key: string, task: () => Promise<T>, options: RunOptions = {}): Promise<T> {
      let state = statesByKey.get(key);
      if (state === undefined) {
        state = { pendingCount: 0, othersAhead: 0, wakers: new Set() };
        statesByKey.set(key, state);
      }
      const ownState = state;
      ownState.pendingCount += 1;
      try {
        const token = await acquire(key, ownState, options.orderMicros);
        const stopExtending = keepExtending(key, token);
        try {
          return await task();
        } finally {
          stopExtending();
          // A release that fails leaves the lock to expire after lockTtlMs; the task's result stands.
          await release(key, token).catch((error: unknown) =>
            logger.warn(
              { err: error, key },
              'could not release a conversation lock; the next task here frees it, elsewhere it expires',
            ),
          );
          activeIds.delete(token);
          wake(key);
        }
      } finally {
        ownState.pendingCount -= 1;
        if (ownState.pendingCount === 0 && statesByKey.get(key) === ownState) statesByKey.delete(key);
      }
    },

    pendingCount(key: string): number {
      const state = statesByKey.get(key);
      return state === undefined ? 0 : state.pendingCount + state.othersAhead;
    },

    async close(): Promise<void> {
      const unsubscribe = await unsubscribing;
      unsubscribing = Promise.resolve(undefined);
      await unsubscribe?.().catch(() => undefined);
    },
  };
}
