/** Discord's limits, written once (platforms.md). */
export const discordLimits = {
  messageLength: 2_000,
  embedTitle: 256,
  embedDescription: 4_096,
  embedFields: 25,
  embedFieldName: 256,
  embedFieldValue: 1_024,
  embedFooter: 2_048,
  embedTotal: 6_000,
  buttonsPerRow: 5,
  actionRows: 5,
  buttonLabel: 80,
  customId: 100,
  attachmentsPerMessage: 10,
  commandDescription: 100,
  optionChoices: 25,
  autocompleteChoices: 25,
  /** About 5 edits per 5 s per channel is what bots observe; one a second keeps a stream inside it. */
  editsPerWindow: 5,
  editWindowMs: 5_000,
  /** Added to per-channel windows: network time between our send and Discord's count. */
  bucketMarginMs: 250,
  /**
   * The bot's own pace for channel calls: under Discord's global 50/s because Discord's window and
   * ours start at different moments (a few 429s at start-up otherwise), and because discord.js
   * also spends the same 50/s on interaction follow-ups.
   */
  schedulerRequestsPerSecond: 45,
} as const;
