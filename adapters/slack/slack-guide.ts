import { messageShortcuts } from './message-shortcuts.ts';

/**
 * How parley works on Slack, for /help and the Home tab: where conversations live and what runs
 * where slash commands cannot. Said once here so both say the same.
 */
export const slackGuide: readonly string[] = [
  'Mention me in a channel and I answer in a thread under your message; that thread is one conversation, and I follow it without further mentions.',
  'In my DM (the agent view), every thread is its own conversation with its own title: start a new chat for a new subject. I show what I am doing under the thread, and Slack’s stop button ends a reply.',
  'Slash commands cannot be used inside a thread, so there mention me followed by summarize, reset, model <name>, system <prompt>, usage or help, or any command with its slash (“/imagine a cat”); in my DM no mention is needed.',
  `On any message, the "More actions" menu has ${messageShortcuts.map((shortcut) => `“${shortcut.name}”`).join(', ')}.`,
  'Rate a finished reply with 👍 or 👎 under it; admins see them by model in /usage --top.',
];

/** What /help shows first on Slack: how parley works here, and the prefix note when there is one. */
export function slackHelp(prefixNote?: string): string {
  return [
    ...(prefixNote === undefined ? [] : [prefixNote]),
    'On Slack:',
    ...slackGuide.map((line) => `• ${line}`),
  ].join('\n');
}
