import type { Action } from '../../src/delivery/card.ts';
import { renderActionsBlock } from './render-blocks.ts';
import type { ReplyPlace } from './reply-place.ts';

/** Buttons only the person sees, for a message that cannot carry them (a native stream). */
export async function postPrivateActions(place: ReplyPlace, actions: readonly Action[]): Promise<void> {
  const actionsBlock = renderActionsBlock(actions);
  if (actionsBlock === undefined || place.recipientUserId === undefined) return;
  await place.client.chat.postEphemeral({
    channel: place.channel,
    user: place.recipientUserId,
    ...(place.threadTs === undefined ? {} : { thread_ts: place.threadTs }),
    text: 'I am still writing my reply.',
    blocks: [
      { type: 'context', elements: [{ type: 'mrkdwn', text: 'I am still writing my reply.' }] },
      actionsBlock,
    ],
  });
}
