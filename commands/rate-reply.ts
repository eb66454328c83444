import type { Actor } from '../src/access/actor.ts';
import { placeOfConversation } from '../src/conversation/turn.ts';
import type { ChatActionPayload } from './action-store.ts';
import type { CommandResponder, CommandServices } from './define-command.ts';

/**
 * A 👍 or 👎 on a finished reply: kept with the rated turn and the model that wrote it, counted in
 * /metrics, and written to the log for whoever looks after the bot. The person hears a short thanks.
 */
export async function rateReply({
  payload,
  isPositive,
  user,
  responder,
  services,
}: {
  payload: ChatActionPayload;
  isPositive: boolean;
  user: Actor;
  responder: CommandResponder;
  services: CommandServices;
}): Promise<void> {
  const { conversationKey, replyCreatedAt } = payload;
  if (replyCreatedAt === undefined) {
    await responder.send({ text: 'That reply can no longer be rated.', isPrivate: true });
    return;
  }
  const history = await services.history.load(conversationKey);
  const rated = history.find((turn) => turn.role === 'assistant' && turn.createdAt === replyCreatedAt);
  if (rated === undefined) {
    await responder.send({ text: 'That reply is no longer in this conversation.', isPrivate: true });
    return;
  }
  const rating = isPositive ? 'positive' : 'negative';
  const model = rated.model ?? services.models.chat;
  await services.feedback.record({
    conversationKey,
    replyCreatedAt,
    userId: user.id,
    rating,
    model,
    platform: placeOfConversation(conversationKey).platform,
    at: services.now(),
  });
  services.logger.info(
    { conversationKey, replyCreatedAt, userId: user.id, rating, model },
    'a reply was rated',
  );
  await responder.send({
    text: isPositive ? 'Thanks, glad it helped.' : 'Thanks for telling me; I will note that this one missed.',
    isPrivate: true,
  });
}
