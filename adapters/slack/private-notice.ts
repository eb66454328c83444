import type { Surface } from '../../src/delivery/surface.ts';
import type { ReplyPlace } from './reply-place.ts';

/**
 * The surface, able to tell the person something only they see: `chat.postEphemeral` in the place
 * of the reply (docs.slack.dev/reference/methods/chat.postEphemeral).
 */
export function withPrivateNotice(surface: Surface, place: ReplyPlace): Surface {
  const userId = place.recipientUserId;
  if (userId === undefined) return surface;
  return {
    ...surface,
    async postPrivately(text) {
      await place.client.chat.postEphemeral({
        channel: place.channel,
        user: userId,
        text,
        ...(place.threadTs === undefined ? {} : { thread_ts: place.threadTs }),
      });
    },
  };
}
