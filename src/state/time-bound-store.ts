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
 * Wraps a keyv store adapter so that every operation settles within `timeoutMs`. A Redis that keeps
 * its TCP connection open but stops answering would otherwise hold a person's turn (and the
 * conversation's lock) for as long as it stays frozen; with the bound the turn fails with a message
 * instead. The late answer, if it ever comes, is ignored.
 */
export function boundStoreTime<Adapter extends KeyvStoreAdapter>(
  adapter: Adapter,
  timeoutMs: number,
): Adapter {
  return new Proxy(adapter, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      if (typeof property !== 'string' || !boundedOperations.has(property)) return value.bind(target);
      return (...parameters: unknown[]) =>
        withTimeout(value.apply(target, parameters) as Promise<unknown>, { operation: property, timeoutMs });
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
