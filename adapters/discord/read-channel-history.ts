import {
  DiscordAPIError,
  type Message,
  PermissionFlagsBits,
  RESTJSONErrorCodes,
  type SendableChannels,
} from 'discord.js';
import type { ChannelMessage } from '../../commands/define-command.ts';
import { UserFacingError } from '../../src/user-facing-error.ts';
import { readableTextOf } from './forwarded-message.ts';

/** Discord returns at most 100 messages a request. */
const pageSize = 100;

/**
 * The newest `limit` messages of a channel or thread, oldest first, read from Discord itself so
 * /summarize sees the whole discussion and not only what the bot took part in.
 */
export async function readChannelHistory({
  channel,
  limit,
  botUserId,
}: {
  channel: SendableChannels;
  limit: number;
  botUserId: string;
}): Promise<ChannelMessage[]> {
  if ('permissionsFor' in channel && typeof channel.permissionsFor === 'function') {
    const permissions = channel.permissionsFor(botUserId);
    if (permissions && !permissions.has(PermissionFlagsBits.ReadMessageHistory)) {
      throw new UserFacingError({
        message: 'missing ReadMessageHistory',
        userMessage: 'I need the **Read Message History** permission in this channel to read it.',
      });
    }
  }
  const collected: Message[] = [];
  let before: string | undefined;
  while (collected.length < limit) {
    const page = await channel.messages
      .fetch({ limit: Math.min(pageSize, limit - collected.length), ...(before ? { before } : {}) })
      .catch((error: unknown) => {
        throw isMissingAccess(error) ? cannotSeeChannelError() : error;
      });
    if (page.size === 0) break;
    collected.push(...page.values());
    before = page.lastKey();
    if (page.size < pageSize) break;
  }
  return collected
    .sort((first, second) => first.createdTimestamp - second.createdTimestamp)
    .map((message) => ({
      authorName: message.member?.displayName ?? message.author.displayName ?? message.author.username,
      text: readableTextOf(message, '', { withEmbeds: true }),
      createdAt: message.createdAt.toISOString(),
      isBot: message.author.bot,
    }));
}

/**
 * What the person hears when Discord hides a channel from the bot (403, Missing Access): most often
 * a private thread, which only its members see (topics/threads.mdx), while commands still reach the
 * bot there.
 */
export function cannotSeeChannelError(): UserFacingError {
  return new UserFacingError({
    message: 'missing access to the channel',
    userMessage:
      'I cannot see this channel. If it is a private thread, add me to it (mention me in it, or use "Add members"), then ask again.',
  });
}

/** Discord's 403 for a channel the bot may not see at all. */
export function isMissingAccess(error: unknown): boolean {
  return error instanceof DiscordAPIError && error.code === RESTJSONErrorCodes.MissingAccess;
}
