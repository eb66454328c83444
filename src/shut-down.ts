import type { Logger } from './log.ts';

/**
 * Runs the steps of a shutdown in order, within `graceMs`. A platform client stuck reconnecting, or a
 * store that does not answer, must not keep the process alive (a supervisor waiting for it to exit
 * would wait forever), so past the deadline the reason is logged and `forceExit(1)` is called.
 */
export async function shutDownWithin({
  graceMs,
  steps,
  logger,
  forceExit,
}: {
  graceMs: number;
  steps: ReadonlyArray<() => Promise<unknown>>;
  logger: Logger;
  forceExit: (exitCode: number) => void;
}): Promise<void> {
  const deadline = setTimeout(() => {
    logger.error(
      { shutdownGraceMs: graceMs },
      'shutdown did not finish within SHUTDOWN_GRACE_MS; forcing the exit',
    );
    forceExit(1);
  }, graceMs);
  // The deadline only guards the steps: once they are done it must not hold the process either.
  deadline.unref();
  try {
    for (const step of steps) await step();
  } finally {
    clearTimeout(deadline);
  }
}

/**
 * How a shutdown spends its grace on replies: half to let them (and the turns waiting behind them)
 * finish, a quarter to cut what is left with a note; the rest is for closing connections and stores.
 */
export function shutdownShares(graceMs: number): { finishWithinMs: number; cutWithinMs: number } {
  return { finishWithinMs: graceMs / 2, cutWithinMs: graceMs / 4 };
}
