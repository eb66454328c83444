import type { Client, Message } from 'discord.js';
import type { Logger } from '../../src/log.ts';
import { discordActorNow } from './discord-actor-now.ts';
import { conversationKeyOfMessage } from './message-turn.ts';

/**
 * Hands on the messages a catch-up read, each only if its author may still act there. A message read
 * with Get Channel Messages carries no member object, so `message.member` would be whatever the
 * cache held: the bot asks for no members intent, so that is as old as the person's last live
 * message. Each author is fetched afresh first (discord-actor-now.ts, as a schedule's owner is):
 * the cache then holds their roles and permissions of now, which access judges; one who left, was
 * timed out or lost the channel since is not answered. Checks run one after another so messages
 * are handed on in the order they were read, oldest first; replies themselves run as before.
 */
export function createCaughtUpAuthors({
  client,
  logger,
  now,
}: {
  client: Client;
  logger: Logger;
  now: () => Date;
}): (message: Message, answer: (message: Message) => void) => void {
  let checks: Promise<void> = Promise.resolve();
  const mayStillAct = async (message: Message): Promise<boolean> => {
    const standing = await discordActorNow({
      client,
      userId: message.author.id,
      conversationKey: conversationKeyOfMessage(message),
      postsThere: false,
      atMs: now().getTime(),
    });
    if (!standing.isPresent) {
      logger.info(
        { channelId: message.channelId, messageId: message.id, reason: standing.reason },
        'a caught-up message is not answered: its author can no longer act there',
      );
    }
    return standing.isPresent;
  };
  return (message, answer) => {
    checks = checks
      .then(async () => {
        if (await mayStillAct(message)) answer(message);
      })
      .catch((error: unknown) => {
        // Without today's facts the message is left unanswered rather than judged on old ones.
        logger.warn({ err: error, messageId: message.id }, 'could not look up a caught-up message’s author');
      });
  };
}
