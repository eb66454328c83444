/**
 * The replies of this bot that have not shown any text yet. Each needs a message create soon, from
 * the same 50 requests a second as typing: in a burst of mentions, a typing indicator for the first
 * dozen replies took a dozen slots of the first second, and every first text after them came a
 * quarter of a second later (500 mentions at once; docs/benchmarks.md, "Third pass").
 * The typing gate counts these replies as if their creates were already in the bot's window.
 */
export interface RepliesAwaitingText {
  /** A reply began; call what this returns once its first text is posted (calling it twice is harmless). */
  begin(nowMs: number): () => void;
  /** How many began in the last second (`forgetAfterMs`) and have not posted yet. */
  count(nowMs: number): number;
}

/**
 * A reply counts for a second after it began: a burst is many replies beginning within a second,
 * and a reply whose model is slow to start must not keep others' typing away for long (at 2.5
 * replies a second with 5 s to the first token, a longer span counted a dozen and no reply showed
 * typing, while the window was nearly idle). One that ends without posting is forgotten the same way.
 */
const defaultForgetAfterMs = 1_000;

export function createRepliesAwaitingText({
  forgetAfterMs = defaultForgetAfterMs,
}: {
  forgetAfterMs?: number;
} = {}): RepliesAwaitingText {
  const beganAtMs = new Map<symbol, number>();
  return {
    begin(nowMs) {
      const reply = Symbol('reply');
      beganAtMs.set(reply, nowMs);
      return () => {
        beganAtMs.delete(reply);
      };
    },
    count(nowMs) {
      // Oldest first (insertion order): stop at the first that still counts.
      for (const [reply, atMs] of beganAtMs) {
        if (atMs > nowMs - forgetAfterMs) break;
        beganAtMs.delete(reply);
      }
      return beganAtMs.size;
    },
  };
}
