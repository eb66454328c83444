/**
 * The message shortcuts of parley (the "More actions" menu of every message), the Slack side of
 * Discord's message actions. Declared once: the manifest lists them and the adapter answers their
 * `callback_id`s (docs.slack.dev/interactivity/implementing-shortcuts).
 */
export interface MessageShortcut {
  readonly kind: MessageShortcutKind;
  /** What the menu shows. */
  readonly name: string;
  /** At most 255 characters (@slack/web-api `ManifestShortcut`). */
  readonly callbackId: string;
  /** At most 150 characters (@slack/web-api `ManifestShortcut`). */
  readonly description: string;
}

export type MessageShortcutKind = 'ask' | 'summarize-from-here' | 'extract';

export const messageShortcuts: readonly MessageShortcut[] = [
  {
    kind: 'ask',
    name: 'Ask parley',
    callbackId: 'parley_ask',
    description: 'Ask parley about this message; it answers in its thread',
  },
  {
    kind: 'summarize-from-here',
    name: 'Summarize from here',
    callbackId: 'parley_summarize_from_here',
    description: 'Summarize this message and everything after it',
  },
  {
    kind: 'extract',
    name: 'Extract data',
    callbackId: 'parley_extract',
    description: "Pull structured data out of this message's text or images",
  },
];

/** The shortcut a `message_action` payload names, if it is one of parley's. */
export function messageShortcutOf(callbackId: string): MessageShortcut | undefined {
  return messageShortcuts.find((shortcut) => shortcut.callbackId === callbackId);
}
