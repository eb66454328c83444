import type { Surface } from '../../src/delivery/surface.ts';
import type { ReplyPlace, SlackDeliveryContext } from './reply-place.ts';

/**
 * The surface, able to tell the person something only they see: `chat.postEphemeral` in the place
 * of the reply (docs.slack.dev/reference/methods/chat.postEphemeral), through the bot's outbound queue.
 */
export function withPrivateNotice(
  surface: Surface,
  place: ReplyPlace,
  context: SlackDeliveryContext,
): Surface {
  const userId = place.recipientUserId;
  if (userId === undefined) return surface;
  return {
    ...surface,
    async postPrivately(text) {
      // What a person is told instead of an answer: it waits its turn like a first post.
      await context.outbound.schedule({
        priority: 'first-post',
        target: { teamId: place.teamId, method: 'chat.postEphemeral', channel: place.channel },
        run: () =>
          place.client.chat.postEphemeral({
            channel: place.channel,
            user: userId,
            text,
            ...(place.threadTs === undefined ? {} : { thread_ts: place.threadTs }),
          }),
      });
    },
  };
}
