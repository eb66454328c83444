/**
 * The ways a person reaches parley on each platform, as rows of the access matrix (issue 21). The
 * matrix tests iterate these lists, and `entry-point-coverage.test.ts` keeps each list equal to the
 * handlers its adapter registers, so a new entry point cannot land without its row.
 */
export const discordEntryPoints = [
  'mention',
  'direct-message',
  'slash-command:chat',
  'slash-command:search',
  'slash-command:imagine',
  'slash-command:summarize',
  'slash-command:usage-of-another',
  'slash-command:usage-of-another-in-dm',
  'slash-command:forget-another',
  'slash-command:export-another',
  'message-command:ask',
  'button:regenerate',
  'button:stop-another',
  'slash-command:memory-of-the-place',
  'missed-mention',
  'slash-command:schedule-in-a-channel',
  // A run of a schedule: nobody is at the keyboard; its owner's Actor is built from Discord at the run.
  'scheduled-run',
  // A person's own time zone: it spends nothing and names no one else, but a blocked person is refused.
  'slash-command:timezone',
  // The place's audit trail: who did what, readable by admins only.
  'slash-command:audit',
] as const;
export type DiscordEntryPoint = (typeof discordEntryPoints)[number];

export const slackEntryPoints = [
  'mention',
  'direct-message',
  'slash-command:chat',
  'slash-command:imagine',
  'slash-command:summarize',
  'slash-command:usage-of-another',
  'slash-command:forget-another',
  'slash-command:export-another',
  'message-shortcut:ask',
  'button:regenerate',
  'slash-command:schedule-in-a-channel',
  'scheduled-run',
  'slash-command:audit',
] as const;
export type SlackEntryPoint = (typeof slackEntryPoints)[number];

/** The terminal: its owner at the keyboard, so only budgets can refuse. */
export const terminalEntryPoints = ['line', 'command:imagine', 'command:extract', 'scheduled-run'] as const;
export type TerminalEntryPoint = (typeof terminalEntryPoints)[number];

/**
 * The rules a tool call meets (issue 25), tried on Discord and Slack: a tool off in the channel, a
 * role without the tool, a budget that cannot pay for another round, an acting tool denied or left
 * unanswered. Each makes no gateway request beyond what its rule allows and never runs the tool
 * past it.
 */
export const toolRules = [
  'tool-off-in-channel',
  'role-without-the-tool',
  'budget-for-no-further-round',
  'acting-tool-denied',
  'acting-tool-unanswered',
] as const;
export type ToolRule = (typeof toolRules)[number];

/**
 * The matrix's time axis (issue 34): work that runs later on a person's authority, each tried
 * against each change made after it was set up. Every cell must be refused when it runs, with zero
 * gateway requests, the schedule paused and its owner told once.
 */
export const deferredKinds = ['schedule-run', 'reminder'] as const;
export type DeferredKind = (typeof deferredKinds)[number];

export const changesAfterCreation = [
  'role-blocked',
  'role-budget-0',
  'admin-removed',
  'member-left',
  'timed-out',
  'channel-permission-lost',
  // parley itself may no longer post in the channel a schedule answers in.
  'parley-permission-lost',
] as const;
export type ChangeAfterCreation = (typeof changesAfterCreation)[number];
