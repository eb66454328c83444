/**
 * Replies being written right now, by id, so a Stop button can cancel one and shutdown can cancel
 * all. In-process on purpose: the click reaches the process that holds the gateway stream.
 */
/** Whose reply it is, so that only they (or an admin) may stop it. */
export interface ReplyAsker {
  readonly askerId: string;
  readonly conversationKey: string;
}

export interface ActiveReplies {
  /** Registers a reply and returns the signal its gateway request listens to. */
  start(replyId: string, asker: ReplyAsker): AbortSignal;
  /** Who asked for a reply being written; undefined when it finished (or never ran here). */
  askerOf(replyId: string): ReplyAsker | undefined;
  /** Stops a reply; false when it already finished (or never ran here). */
  stop(replyId: string): boolean;
  finish(replyId: string): void;
  /** How many replies are being written in this process now (the owner's console shows it). */
  inFlight(): number;
  /**
   * Stops every reply (shutdown) and resolves once all have finished, or after `timeoutMs`. Replies
   * that start afterwards (turns that were waiting for their conversation) are stopped at once, so
   * the process can end; each is cut with a note like any stopped reply.
   */
  stopAll(timeoutMs: number): Promise<void>;
}

export function createActiveReplies(): ActiveReplies {
  const controllers = new Map<string, AbortController>();
  const askers = new Map<string, ReplyAsker>();
  let onIdle: (() => void) | undefined;
  let isStopping = false;
  return {
    start(replyId, asker) {
      const controller = new AbortController();
      controllers.set(replyId, controller);
      askers.set(replyId, asker);
      if (isStopping) controller.abort();
      return controller.signal;
    },
    stop(replyId) {
      const controller = controllers.get(replyId);
      if (!controller) return false;
      controller.abort();
      return true;
    },
    askerOf: (replyId) => askers.get(replyId),
    inFlight: () => controllers.size,
    finish(replyId) {
      controllers.delete(replyId);
      askers.delete(replyId);
      if (controllers.size === 0) onIdle?.();
    },
    async stopAll(timeoutMs) {
      isStopping = true;
      if (controllers.size === 0) return;
      const idle = new Promise<void>((resolve) => {
        onIdle = resolve;
      });
      for (const controller of controllers.values()) controller.abort();
      await Promise.race([idle, new Promise((resolve) => setTimeout(resolve, timeoutMs).unref())]);
    },
  };
}
