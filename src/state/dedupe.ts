/**
 * Tells a new event from a redelivery of one already handled. Slack retries an event (same
 * `event_id`) when the bot's acknowledgement was late; answering each copy would post the reply twice.
 *
 * Asynchronous so that a shared implementation (Redis `SET id 1 NX PX ttlMs`) can stand in for the
 * in-memory one when several bot processes receive events.
 */
export interface Deduper {
  /**
   * True the first time `id` is offered, and again once `ttlMs` has passed since that first time;
   * false for every repeat in between. Checking also records the sighting.
   */
  isFirstSighting(id: string, ttlMs: number): Promise<boolean>;
}

export interface InMemoryDeduperOptions {
  /**
   * The most ids remembered at once; past it the oldest are forgotten early, so a flood of events
   * costs bounded memory at the price of possibly answering a very late retry twice.
   */
  readonly maxEntries?: number;
  /** The clock, in milliseconds since the epoch; tests pass their own. */
  readonly now?: () => number;
}

/** A Deduper for a single bot process, forgetting ids after their ttl or when full. */
export function createInMemoryDeduper({
  maxEntries = 10_000,
  now = Date.now,
}: InMemoryDeduperOptions = {}): Deduper {
  if (!Number.isInteger(maxEntries) || maxEntries < 1) {
    throw new RangeError(`maxEntries must be a positive integer; got ${maxEntries}`);
  }
  // A Map iterates in insertion order, and every sighting is (re)inserted at the end, so the oldest
  // sightings are always first: both expiry and eviction only ever look at the front.
  const expiresAtMsById = new Map<string, number>();

  const forgetExpired = (nowMs: number): void => {
    for (const [id, expiresAtMs] of expiresAtMsById) {
      // With mixed ttls a long-lived id can shield shorter ones behind it; they still go when they
      // reach the front or when maxEntries evicts them, so memory stays bounded.
      if (expiresAtMs > nowMs) return;
      expiresAtMsById.delete(id);
    }
  };

  return {
    async isFirstSighting(id: string, ttlMs: number): Promise<boolean> {
      const nowMs = now();
      forgetExpired(nowMs);
      const expiresAtMs = expiresAtMsById.get(id);
      if (expiresAtMs !== undefined && expiresAtMs > nowMs) return false;
      expiresAtMsById.delete(id);
      expiresAtMsById.set(id, nowMs + ttlMs);
      for (const oldestId of expiresAtMsById.keys()) {
        if (expiresAtMsById.size <= maxEntries) break;
        expiresAtMsById.delete(oldestId);
      }
      return true;
    },
  };
}
