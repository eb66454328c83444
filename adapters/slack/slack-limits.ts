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

/** A token bucket for one Web API method, per workspace (or per channel, see `isPerChannel`). */
export interface MethodBudget {
  readonly perMinute: number;
  /** Calls that may go at once after a quiet spell. */
  readonly burst: number;
  /** Slack counts this method per channel as well as per workspace ("Special" on its page). */
  readonly isPerChannel?: boolean;
}

/**
 * The calls parley spaces out itself, a little under Slack's tiers (per method and workspace; the
 * tiers are on docs.slack.dev/apis/web-api/rate-limits, each method's tier on its own reference
 * page) so that several replies streaming at once slow each other down instead of drawing 429s.
 */
export const methodBudgets: Readonly<Record<string, MethodBudget>> = {
  /**
   * "Special": about one message a second per channel, short bursts allowed, and a workspace-wide
   * limit of several hundred a minute (docs.slack.dev/reference/methods/chat.postMessage, "Rate limiting").
   */
  'chat.postMessage': { perMinute: 55, burst: 3, isPerChannel: true },
  /** Tier 3: 50+ a minute (docs.slack.dev/reference/methods/chat.update). */
  'chat.update': { perMinute: 45, burst: 5 },
  /** Tier 4: 100+ a minute (docs.slack.dev/reference/methods/chat.appendStream). */
  'chat.appendStream': { perMinute: 90, burst: 10 },
  /**
   * Tier 2: 20+ a minute (docs.slack.dev/reference/methods/chat.startStream), and every native reply
   * needs one start and one stop. A reply that finds no start left posts and updates instead of
   * waiting; a stop waits its turn.
   */
  'chat.startStream': { perMinute: 18, burst: 4 },
  /** Tier 2 (docs.slack.dev/reference/methods/chat.stopStream). */
  'chat.stopStream': { perMinute: 18, burst: 4 },
  /** Tier 4 (docs.slack.dev/reference/methods/chat.postEphemeral): the private Stop notice. */
  'chat.postEphemeral': { perMinute: 90, burst: 10 },
  /** Per channel, like chat.postMessage (docs.slack.dev/reference/methods/assistant.threads.setStatus). */
  'assistant.threads.setStatus': { perMinute: 55, burst: 3, isPerChannel: true },
  /**
   * Tier 3 (slackapi/java-slack-sdk PR #1633, "Rate limit: Tier 3 (both)"): a session's status,
   * processing as a reply starts and active as it ends, two calls a reply.
   */
  'agents.sessions.setStatus': { perMinute: 45, burst: 5 },
  /** Tier 3, as setStatus: one rename a thread, after its first exchange. */
  'agents.sessions.rename': { perMinute: 45, burst: 5 },
  /** Tier 4 (docs.slack.dev/reference/methods/users.info): display names, cached. */
  'users.info': { perMinute: 90, burst: 10 },
};

/** The least time between two edits of one message, per path (the writer's `minEditIntervalMs`). */
export const editIntervals = {
  /** `chat.update` at Tier 3: one reply alone may use the whole workspace budget, no more. */
  updateMs: 1_300,
  /**
   * `chat.appendStream` at Tier 4. About once a second, as a person reads (the floor bot updates
   * once a second, the Chat SDK once a line): at 700 ms a 6 s answer took 8 appends, and a reply
   * cost 13 Web API calls against the floor's 7. At 1.2 s the fifth append of a 6.4 s answer fell
   * within milliseconds of its end, so it took 4 or 5 by a race (8 or 9 calls); at 1.3 s, the pace of
   * `chat.update`, it takes 4 with 0.3 s to spare.
   */
  nativeStreamMs: 1_300,
} as const;
