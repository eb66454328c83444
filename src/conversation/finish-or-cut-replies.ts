import type { ActiveReplies } from './active-replies.ts';
import type { ConversationEngine } from './engine.ts';

/**
 * The graceful end of a process's replies: those in progress, and the turns waiting behind them, may
 * finish for `finishWithinMs`; what is still running then is cut with a note (the text so far
 * stays, the turn is recorded as interrupted) and given `cutWithinMs` to say so. Each reply lets go
 * of its conversation lock as it ends, so another process takes the next turn at once.
 */
export async function finishOrCutReplies({
  engine,
  activeReplies,
  finishWithinMs,
  cutWithinMs,
}: {
  engine: Pick<ConversationEngine, 'whenIdle'>;
  activeReplies: Pick<ActiveReplies, 'stopAll'>;
  finishWithinMs: number;
  cutWithinMs: number;
}): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    engine.whenIdle(),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, finishWithinMs);
      timer.unref();
    }),
  ]);
  clearTimeout(timer);
  await activeReplies.stopAll(cutWithinMs);
}
