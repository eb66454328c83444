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
  /** A Components V2 message: 40 components in all, nested ones counted (components/reference.mdx). */
  componentsPerMessage: 40,
  /** The text of all its text displays (discord/discord-api-docs pull request #8562). */
  componentsTextCharacters: 4_000,
  /** Items of one media gallery (components/reference.mdx, "Media Gallery"). */
  galleryItems: 10,
  /** A file's upload limit without boosts (reference.mdx, Uploading Files); interactions say theirs. */
  attachmentBytes: 10 * 1024 * 1024,
  /** The largest request that sends a message, files included (resources/message.mdx, Create Message). */
  requestBytes: 25 * 1024 * 1024,
  /** How long an interaction token works (interactions/receiving-and-responding.mdx). */
  interactionTokenLifetimeMs: 15 * 60 * 1000,
  commandDescription: 100,
  optionChoices: 25,
  /** A choice's name and string value (interactions/application-commands.mdx). */
  choiceValue: 100,
  /** interactions/receiving-and-responding.mdx, "Autocomplete": "autocomplete choices (max of 25 choices)". */
  autocompleteChoices: 25,
  /** About 5 edits per 5 s per channel is what bots observe; one a second keeps a stream inside it. */
  editsPerWindow: 5,
  editWindowMs: 5_000,
  /** Added to per-channel windows: network time between our send and Discord's count. */
  bucketMarginMs: 250,
  /**
   * The bot's own pace for channel calls. The scheduler holds a slot from sending until a window
   * after the response, so no two requests Discord could count in one second escape it, whatever
   * the network did in between; one below 50 leaves room for interaction follow-ups, which
   * discord.js counts against the same 50/s.
   */
  schedulerRequestsPerSecond: 49,
  /**
   * Typing indicators go only while the bot's window is used below this share, so that renewing
   * the indicators of hundreds of waiting replies never takes what their first texts need.
   */
  typingShareOfBudget: 0.25,
} as const;
