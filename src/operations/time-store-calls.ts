import type { Keyv } from 'keyv';
import { recordSlowStoreOperation } from '../tracing/store-spans.ts';
import { recordStoreOperation } from './metrics.ts';

/** The store operations parley's stores use; each is timed, whatever the backend. */
const timedOperations = [
  'get',
  'getRaw',
  'getMany',
  'getManyRaw',
  'set',
  'delete',
  'has',
  'setMany',
  'deleteMany',
  'clear',
] as const;

/**
 * Times every operation of a keyv store into `parley_store_operation_seconds`, by backend and
 * result; a slow or failed one is also a span of the turn that waited on it. The methods are replaced on this one instance, so callers keep using plain keyv.
 */
export function timeStoreCalls({
  keyv,
  backend,
  slowOperationMs,
}: {
  keyv: Keyv;
  backend: string;
  /** Slower than this, an operation is also a span of the turn (tracing on); default 50 ms. */
  slowOperationMs?: number;
}): Keyv {
  const methods = keyv as unknown as Record<string, (...parameters: unknown[]) => Promise<unknown>>;
  for (const operation of timedOperations) {
    const original = methods[operation]?.bind(keyv);
    if (!original) continue;
    methods[operation] = async (...parameters: unknown[]) => {
      const startedAtMs = performance.now();
      let isOk = false;
      try {
        const result = await original(...parameters);
        isOk = true;
        return result;
      } finally {
        const endedAtMs = performance.now();
        recordStoreOperation({ backend, operation, isOk, seconds: (endedAtMs - startedAtMs) / 1000 });
        recordSlowStoreOperation({
          backend,
          operation,
          startedAtMs,
          endedAtMs,
          isOk,
          ...(slowOperationMs === undefined ? {} : { slowAfterMs: slowOperationMs }),
        });
      }
    };
  }
  return keyv;
}
