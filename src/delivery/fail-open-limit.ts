import type { Logger } from '../log.ts';
import type { Acquisition, RateLimit } from './rate-limits.ts';

/**
 * A limit kept elsewhere (Redis) that grants when it cannot be asked: a broken shared budget must
 * not silence the bot, and the process's own limits still hold it to the budget of one process. The
 * failure is logged once per minute at most, so a Redis outage does not flood the log.
 */
export function failOpen({
  limit,
  logger,
  what,
}: {
  limit: RateLimit;
  logger: Logger;
  what: string;
}): RateLimit {
  let lastWarnedAtMs = Number.NEGATIVE_INFINITY;
  const granted: Acquisition = { isGranted: true, release: () => undefined };
  const warn = (error: unknown) => {
    const nowMs = Date.now();
    if (nowMs - lastWarnedAtMs < 60_000) return;
    lastWarnedAtMs = nowMs;
    logger.warn({ err: error }, `${what} is unavailable; sending without it`);
  };
  return {
    tryAcquire(key, nowMs) {
      let answer: ReturnType<RateLimit['tryAcquire']>;
      try {
        answer = limit.tryAcquire(key, nowMs);
      } catch (error) {
        warn(error);
        return granted;
      }
      if (!(answer instanceof Promise)) return answer;
      return answer.then(
        (settled): Acquisition =>
          settled.isGranted
            ? {
                isGranted: true,
                release: (outcome) =>
                  Promise.resolve(settled.release(outcome)).catch((error: unknown) => warn(error)),
              }
            : settled,
        (error: unknown) => {
          warn(error);
          return granted;
        },
      );
    },
  };
}
