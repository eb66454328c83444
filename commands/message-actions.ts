/**
 * Actions a person starts from a message already on screen: Discord's message commands (the
 * message's context menu, "Apps"), Slack's message shortcuts. Declared once; each platform
 * registers them under these names.
 */
export type MessageActionKind = 'ask' | 'summarize-from-here' | 'extract';

export interface MessageAction {
  readonly kind: MessageActionKind;
  /** As the menu shows it; Discord allows 1–32 characters of any case. */
  readonly name: string;
  /** One line for /help and for platforms that show a description (Slack shortcuts). */
  readonly description: string;
}

export const messageActions: readonly MessageAction[] = [
  {
    kind: 'ask',
    name: 'Ask parley about this',
    description: 'Ask a question about a message, its text and images; the answer opens a thread from it',
  },
  {
    kind: 'summarize-from-here',
    name: 'Summarize from here',
    description: 'Summarize the conversation from this message to now',
  },
  {
    kind: 'extract',
    name: 'Extract data',
    description: "Pull the message's text, images or files into /extract's card and files",
  },
];

/** The action with this name, as the platform sends it back. */
export function findMessageAction(name: string): MessageAction | undefined {
  return messageActions.find((action) => action.name === name);
}
