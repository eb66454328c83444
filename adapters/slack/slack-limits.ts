/** Slack's limits and the budgets parley keeps within them, written once (platforms.md). */
export const slackLimits = {
  /**
   * The longest piece of a reply one message carries. A reply message is one `markdown` block (12,000
   * characters per payload) or a native stream (12,000 per `markdown_text`); 10,000 leaves room
   * below both, and a longer piece would be a wall of text on a phone anyway.
   */
  replyMessageLength: 10_000,
  /**
   * The notification `text` that goes with blocks. People see it only in notifications and search;
   * `chat.update` may refuse a long `text` that `chat.postMessage` accepts, so it stays short.
   */
  fallbackTextLength: 3_000,
  /** All `markdown` blocks of one payload together ("Markdown block", docs.slack.dev). */
  markdownBlockCharacters: 12_000,
  blocksPerMessage: 50,
  headerText: 150,
  sectionText: 3_000,
  sectionFieldText: 2_000,
  sectionFields: 10,
  contextElementText: 2_000,
  actionsElements: 25,
  buttonText: 75,
  actionId: 255,
  /**
   * All text of one card together. Slack documents no total, but a card past this is no longer read;
   * the rest is counted in a "more fields" line.
   */
  cardCharacters: 12_000,
  /** Slash commands and interactivity must be acknowledged within 3 s. */
  ackTimeoutMs: 3_000,
  /** `conversations.history` and `conversations.replies` return at most this many messages a page. */
  historyPageSize: 200,
  /**
   * What those return to an app distributed outside the Slack Marketplace: 15 a call, one call a
   * minute (docs.slack.dev changelog, 2025-05-29, "Rate limit changes for non-Marketplace apps").
   */
  nonMarketplaceHistoryPage: 15,
} as const;

/** A token bucket for one Web API method, per workspace. */
export interface MethodBudget {
  readonly perMinute: number;
  /** Calls that may go at once after a quiet spell. */
  readonly burst: number;
}

/**
 * The calls parley spaces out itself, a little under Slack's tiers (per method and workspace) so that
 * several replies streaming at once slow each other down instead of drawing 429s.
 */
export const methodBudgets: Readonly<Record<string, MethodBudget>> = {
  /** Tier 3: about 50 a minute. */
  'chat.update': { perMinute: 45, burst: 5 },
  /** Tier 4: about 100 a minute. */
  'chat.appendStream': { perMinute: 90, burst: 10 },
  /**
   * Tier 2: about 20 a minute, and every native reply needs one start and one stop. A reply that finds
   * no start left streams with chat.update instead of waiting; a stop waits its turn.
   */
  'chat.startStream': { perMinute: 18, burst: 4 },
  'chat.stopStream': { perMinute: 18, burst: 4 },
};

/** The least time between two edits of one message, per path (the writer's `minEditIntervalMs`). */
export const editIntervals = {
  /** `chat.update` at Tier 3: one reply alone may use the whole workspace budget, no more. */
  updateMs: 1_300,
  /** `chat.appendStream` at Tier 4. */
  nativeStreamMs: 700,
} as const;
