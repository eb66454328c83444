import {
  type MessageAction,
  type MessageActionKind,
  messageActions,
} from '../../commands/message-actions.ts';

/**
 * The message shortcuts of parley (the "More actions" menu of every message): the message actions of
 * commands/message-actions.ts, which Discord shows in a message's "Apps" menu, under Slack callback
 * ids. The manifest lists them and the adapter answers their `callback_id`s
 * (docs.slack.dev/interactivity/implementing-shortcuts).
 */
export interface MessageShortcut extends MessageAction {
  /** At most 255 characters (@slack/web-api `ManifestShortcut`); the description at most 150. */
  readonly callbackId: string;
}

const callbackIds: Readonly<Record<MessageActionKind, string>> = {
  ask: 'parley_ask',
  'summarize-from-here': 'parley_summarize_from_here',
  extract: 'parley_extract',
};

export const messageShortcuts: readonly MessageShortcut[] = messageActions.map((action) => ({
  ...action,
  callbackId: callbackIds[action.kind],
}));

/** The shortcut a `message_action` payload names, if it is one of parley's. */
export function messageShortcutOf(callbackId: string): MessageShortcut | undefined {
  return messageShortcuts.find((shortcut) => shortcut.callbackId === callbackId);
}
