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
} as const;
