import type { KeyvStoreAdapter } from 'keyv';
import { UserFacingError } from '../user-facing-error.ts';

/** What a person is told when the store cannot be reached, whatever the reason. */
export const storeUnavailableMessage =
  'I cannot reach my memory of this conversation right now. Please try again in a moment.';

/** Thrown when a store operation did not settle in time: a server that is up but does not answer. */
export class StoreTimeoutError extends UserFacingError {
  readonly operation: string;
  readonly timeoutMs: number;
  constructor({ operation, timeoutMs }: { operation: string; timeoutMs: number }) {
    super({
      message: `the store did not answer ${operation} within ${timeoutMs} ms`,
      userMessage: storeUnavailableMessage,
    });
    this.name = 'StoreTimeoutError';
    this.operation = operation;
    this.timeoutMs = timeoutMs;
  }
}

/** The adapter operations that wait on the backend; everything else passes through untouched. */
const boundedOperations = new Set([
  'get',
  'getMany',
  'set',
  'setMany',
  'delete',
  'deleteMany',
  'has',
  'hasMany',
  'clear',
]);

/**
 * Bounds the calls of one store connection in time, together: each settles within `timeoutMs`, and
 * once one did not, the calls of the next `timeoutMs` get only a short bound (a quarter of it, at
 * most 250 ms). A turn makes several store calls one after another (dedupe, access, lock, history,
 * budgets); against a Redis that stopped answering, the first waits out the bound and the rest give
 * up quickly, so the person hears within about `timeoutMs` rather than a multiple of it. A Redis that
 * answers again answers well within the short bound, so it is used again at once.
 */
export interface StoreTimeBound {
  readonly timeoutMs: number;
  bound<Result>(operation: string, call: () => Promise<Result>, options?: BoundCallOptions): Promise<Result>;
}

export interface BoundCallOptions {
  /**
   * False for a call that may settle without the server saying anything (handing out the client
   * once it is connected): its success says nothing about whether the server answers, so it must not
   * end the short bound. A frozen Redis would otherwise give the call right after it (a Discord
   * request's shared-window script) the whole bound again. Default true.
   */
  readonly reachesServer?: boolean;
}

export function createStoreTimeBound({
  timeoutMs,
  nowMs = Date.now,
}: {
  timeoutMs: number;
  nowMs?: () => number;
}): StoreTimeBound {
  const shortTimeoutMs = Math.min(250, Math.ceil(timeoutMs / 4));
  let unansweredUntilMs = 0;
  return {
    timeoutMs,
    async bound(operation, call, { reachesServer = true } = {}) {
      // Only a call that had the whole bound says the store stopped answering: a slow store that
      // misses the short bound must not keep itself in it.
      const isShort = nowMs() < unansweredUntilMs;
      try {
        const result = await withTimeout(call(), {
          operation,
          timeoutMs: isShort ? shortTimeoutMs : timeoutMs,
        });
        if (reachesServer) unansweredUntilMs = 0;
        return result;
      } catch (error) {
        if (error instanceof StoreTimeoutError && !isShort) unansweredUntilMs = nowMs() + timeoutMs;
        throw error;
      }
    },
  };
}

/**
 * Wraps a keyv store adapter so that every operation is bounded by `timeBound`. A Redis that keeps
 * its TCP connection open but stops answering would otherwise hold a person's turn (and the
 * conversation's lock) for as long as it stays frozen; with the bound the turn fails with a message
 * instead. The late answer, if it ever comes, is ignored.
 */
export function boundStoreTime<Adapter extends KeyvStoreAdapter>(
  adapter: Adapter,
  timeBound: StoreTimeBound,
): Adapter {
  return new Proxy(adapter, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      if (typeof property !== 'string' || !boundedOperations.has(property)) return value.bind(target);
      return (...parameters: unknown[]) =>
        timeBound.bound(property, () => value.apply(target, parameters) as Promise<unknown>);
    },
  });
}

/** Settles like `operation`, or rejects with a StoreTimeoutError after `timeoutMs`. */
export function withTimeout<Result>(
  operation: Promise<Result>,
  { operation: name, timeoutMs }: { operation: string; timeoutMs: number },
): Promise<Result> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreTimeoutError({ operation: name, timeoutMs })), timeoutMs);
    timer.unref();
  });
  // The losing promise must not surface as an unhandled rejection later.
  operation.catch(() => undefined);
  return Promise.race([operation, timeout]).finally(() => clearTimeout(timer));
}
