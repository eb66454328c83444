import type { ThreadChannel } from 'discord.js';

/**
 * Discord lets a channel's name change twice per 10 minutes and answers a third rename with a 429
 * that lasts until the window ends (discord-api-docs issue 1900; it is not in the docs: "we do not
 * typically document rate limits", pull 2760). parley counts its own renames so that it never sends
 * the third, rather than having the client wait out ten minutes.
 */
export const threadRenameBudget = { renames: 2, windowMs: 10 * 60 * 1000 } as const;

export type RenameOutcome =
  | { readonly status: 'renamed'; readonly name: string }
  | { readonly status: 'unchanged'; readonly name: string }
  /** The budget is spent: `retryAtMs` is when the oldest rename leaves the window. */
  | { readonly status: 'limited'; readonly retryAtMs: number };

/** Renames threads within Discord's budget, remembering when each thread was renamed. */
export interface ThreadRenames {
  rename(thread: Pick<ThreadChannel, 'id' | 'name' | 'setName'>, name: string): Promise<RenameOutcome>;
  /** How many renames the thread has left now. */
  remaining(threadId: string): number;
}

/**
 * One per process. The count lives in memory: a thread belongs to one guild and a guild to one
 * shard, so only one process renames a given thread.
 */
export function createThreadRenames({ now = () => Date.now() }: { now?: () => number } = {}): ThreadRenames {
  const renamesAtMs = new Map<string, number[]>();
  const recentRenames = (threadId: string): number[] => {
    const atMs = now();
    const recent = (renamesAtMs.get(threadId) ?? []).filter(
      (renamedAtMs) => atMs - renamedAtMs < threadRenameBudget.windowMs,
    );
    if (recent.length === 0) renamesAtMs.delete(threadId);
    else renamesAtMs.set(threadId, recent);
    return recent;
  };
  return {
    async rename(thread, name) {
      if (thread.name === name) return { status: 'unchanged', name };
      const recent = recentRenames(thread.id);
      const oldest = recent[0];
      if (recent.length >= threadRenameBudget.renames && oldest !== undefined) {
        return { status: 'limited', retryAtMs: oldest + threadRenameBudget.windowMs };
      }
      // Counted before the call: a rename that fails on the way may still have reached Discord.
      renamesAtMs.set(thread.id, [...recent, now()]);
      try {
        await thread.setName(name);
      } catch (error) {
        // Discord counted renames parley did not see (a person's, another process's): its 429 says when.
        const retryAfterMs = (error as { retryAfter?: unknown }).retryAfter;
        if (typeof retryAfterMs === 'number') return { status: 'limited', retryAtMs: now() + retryAfterMs };
        throw error;
      }
      return { status: 'renamed', name };
    },
    remaining: (threadId) => threadRenameBudget.renames - recentRenames(threadId).length,
  };
}
