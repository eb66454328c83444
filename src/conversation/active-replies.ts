/**
 * Replies being written right now, by id, so a Stop button can cancel one. In-process on purpose:
 * the click reaches the process that holds the gateway stream.
 */
export interface ActiveReplies {
  /** Registers a reply and returns the signal its gateway request listens to. */
  start(replyId: string): AbortSignal;
  /** Stops a reply; false when it already finished (or never ran here). */
  stop(replyId: string): boolean;
  finish(replyId: string): void;
}

export function createActiveReplies(): ActiveReplies {
  const controllers = new Map<string, AbortController>();
  return {
    start(replyId) {
      const controller = new AbortController();
      controllers.set(replyId, controller);
      return controller.signal;
    },
    stop(replyId) {
      const controller = controllers.get(replyId);
      if (!controller) return false;
      controller.abort();
      controllers.delete(replyId);
      return true;
    },
    finish(replyId) {
      controllers.delete(replyId);
    },
  };
}
