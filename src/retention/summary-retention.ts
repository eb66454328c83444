import type { ConversationSummaries } from '../conversation/conversation-summaries.ts';
import type { KeptData } from './kept-data.ts';

/**
 * Conversations' rolling summaries: a summary that holds only turns older than its place's cutoff
 * goes with them in the sweep, and /forget removes the summaries of the conversations the person
 * wrote in, since they may retell what the person said (the conversation keeps its recent turns).
 */
export function summaryKeptData({
  summaries,
  conversationKeys,
}: {
  summaries: ConversationSummaries;
  /** Every conversation that may have a summary (the history's conversations). */
  conversationKeys: () => Promise<readonly string[]>;
}): KeptData {
  return {
    name: 'summaries',
    async sweep(context) {
      let removed = 0;
      for (const key of await conversationKeys()) {
        const cutoffMs = await context.cutoffMsFor(key);
        if (cutoffMs === undefined) continue;
        const summary = await summaries.get(key);
        if (summary && Date.parse(summary.coversThrough) < cutoffMs) {
          await summaries.reset(key);
          removed += 1;
        }
      }
      return removed;
    },
    async forget(request) {
      let removed = 0;
      for (const key of request.conversationKeys) {
        if (await summaries.get(key)) {
          await summaries.reset(key);
          removed += 1;
        }
      }
      return removed;
    },
  };
}
