/**
 * Runs tasks one at a time per key: the engine takes a conversation's lock so two turns never read and
 * write the same history at once, while other conversations go on in parallel.
 */
export interface KeyedLock {
  /**
   * Runs `task` once every earlier task of the same key has settled, in arrival order, and settles
   * with the task's result. A task that throws releases the key like any other.
   */
  run<T>(key: string, task: () => Promise<T>, options?: RunOptions): Promise<T>;
  /**
   * How many tasks of `key` this process has started through `run` and that have not settled yet,
   * the running one included: above zero before `run`, the new task will wait (worth telling the user
   * "waiting for the previous reply").
   */
  pendingCount(key: string): number;
  /**
   * Takes a turn's place in its key's order the moment its event arrives, before whatever work comes
   * before `run` (look-ups, access, dedupe): turns sent after it wait for it, however long that work
   * takes. `run` with the same `orderMicros` takes the place; a turn that will not run releases it.
   * Absent on a lock that serves tasks only in the order they reach it.
   */
  reserve?(key: string, orderMicros: number): TurnPlace;
}

/** A turn's place in its conversation's order, taken before the turn reached the lock. */
export interface TurnPlace {
  /** Gives the place up (the turn will not run); after `run` took it, does nothing. */
  release(): void;
}

/** How a task takes its place in its key's queue. */
export interface RunOptions {
  /**
   * When the platform says the turn was sent, in microseconds since the epoch. A shared lock queues
   * tasks by it, so turns that reached different processes are answered in the order they were
   * written; without it a task queues in the order it reached the lock. The in-process lock serves
   * arrival order; `createOrderedLock` in front of either lock puts that arrival in the platform's
   * order, and `reserve` keeps work before the lock from changing it.
   */
  readonly orderMicros?: number;
}

/** A KeyedLock for a single bot process; several processes sharing a store need a shared lock. */
export interface InProcessLock extends KeyedLock {
  /** Keys with a running or waiting task; keys whose queue emptied are forgotten. */
  readonly activeKeyCount: number;
}

interface KeyQueue {
  /** Settles when the last task queued so far has settled; never rejects. */
  tail: Promise<void>;
  pendingCount: number;
}

/** Creates a KeyedLock that keeps its queues in this process's memory. */
export function createInProcessLock(): InProcessLock {
  const queuesByKey = new Map<string, KeyQueue>();

  return {
    run<T>(key: string, task: () => Promise<T>): Promise<T> {
      let queue = queuesByKey.get(key);
      if (queue === undefined) {
        queue = { tail: Promise.resolve(), pendingCount: 0 };
        queuesByKey.set(key, queue);
      }
      const ownQueue = queue;
      ownQueue.pendingCount += 1;
      // A callback, so a task that throws synchronously becomes a rejection like an async one.
      const result = ownQueue.tail.then(() => task());
      const release = (): void => {
        ownQueue.pendingCount -= 1;
        // Nobody is queued behind: a later run() would have counted itself before chaining on tail.
        if (ownQueue.pendingCount === 0 && queuesByKey.get(key) === ownQueue) queuesByKey.delete(key);
      };
      ownQueue.tail = result.then(release, release);
      return result;
    },

    pendingCount(key: string): number {
      return queuesByKey.get(key)?.pendingCount ?? 0;
    },

    get activeKeyCount(): number {
      return queuesByKey.size;
    },
  };
}
