import { discordLimits } from './discord-limits.ts';

/**
 * The edit budget of each channel, shared by every reply streaming there: at most
 * `editsPerWindow` edits in any `windowMs`. Callers wait their turn in arrival order, so two replies
 * in one channel slow each other's edits down instead of drawing 429s.
 */
export interface ChannelEditBudget {
  /** Resolves when an edit in this channel may go out now; the edit then counts against the budget. */
  acquire(channelId: string): Promise<void>;
  /** True while edits in this channel are waiting for budget. */
  isBusy(channelId: string): boolean;
}

export function createChannelEditBudget({
  editsPerWindow = discordLimits.editsPerWindow,
  windowMs = discordLimits.editWindowMs,
  now = () => Date.now(),
}: {
  editsPerWindow?: number;
  windowMs?: number;
  now?: () => number;
} = {}): ChannelEditBudget {
  const channels = new Map<string, { sentAtMs: number[]; queue: Promise<void>; waiting: number }>();

  const waitForSlot = async (channel: { sentAtMs: number[] }) => {
    for (;;) {
      const cutoff = now() - windowMs;
      while (channel.sentAtMs.length > 0 && (channel.sentAtMs[0] ?? 0) <= cutoff) channel.sentAtMs.shift();
      if (channel.sentAtMs.length < editsPerWindow) {
        channel.sentAtMs.push(now());
        return;
      }
      const oldest = channel.sentAtMs[0] ?? now();
      await new Promise((resolve) => setTimeout(resolve, Math.max(1, oldest + windowMs - now())));
    }
  };

  return {
    acquire(channelId) {
      let channel = channels.get(channelId);
      if (!channel) {
        channel = { sentAtMs: [], queue: Promise.resolve(), waiting: 0 };
        channels.set(channelId, channel);
      }
      const state = channel;
      state.waiting += 1;
      const turn = state.queue.then(() => waitForSlot(state));
      state.queue = turn;
      return turn.finally(() => {
        state.waiting -= 1;
        // A quiet channel forgets its state, so memory follows the channels in use, not all ever seen.
        if (state.waiting === 0 && state.sentAtMs.every((sentAtMs) => sentAtMs <= now() - windowMs)) {
          channels.delete(channelId);
        }
      });
    },
    isBusy(channelId) {
      return (channels.get(channelId)?.waiting ?? 0) > 0;
    },
  };
}
