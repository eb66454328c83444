import { type Message, PermissionFlagsBits } from 'discord.js';
import { replyWithActions } from '../../commands/chat-reply.ts';
import { placeOfConversation } from '../../src/conversation/turn.ts';
import type { DiscordAdapterContext } from './adapter-context.ts';
import { createChannelSurface } from './channel-surface.ts';
import { buildTurnFromMessage, conversationKeyOfMessage } from './message-turn.ts';

/** Answers a message when it is meant for the bot, streaming the reply into the channel. */
export async function handleMessage({
  message,
  adapter,
}: {
  message: Message;
  adapter: DiscordAdapterContext;
}): Promise<void> {
  const botUserId = adapter.client.user?.id;
  if (!botUserId || message.author.bot || message.system || !message.channel.isSendable()) return;
  if (!(await shouldAnswer({ message, botUserId, adapter }))) return;
  const channel = message.channel;
  if (message.guild && 'permissionsFor' in channel) {
    const permissions = channel.permissionsFor(botUserId);
    const canSend = channel.isThread()
      ? permissions?.has(PermissionFlagsBits.SendMessagesInThreads)
      : permissions?.has(PermissionFlagsBits.SendMessages);
    if (canSend === false) {
      adapter.logger.warn({ channelId: channel.id }, 'mentioned in a channel where it may not send messages');
      await adapter.tellUnableToPost(
        message,
        channel.isThread() ? 'Send Messages in Threads' : 'Send Messages',
      );
      return;
    }
  }
  const turn = await buildTurnFromMessage({
    message,
    botUserId,
    maxImageBytes: adapter.maxImageBytes,
    maxDocumentBytes: adapter.services.maxDocumentBytes,
  });
  const surface = createChannelSurface({
    channel,
    outbound: adapter.outbound,
    replyTo: message,
    botUserId,
  });
  await replyWithActions({
    services: adapter.services,
    turn,
    surface,
    beforeReply: async () => surface.showTyping?.(),
  });
}

async function shouldAnswer({
  message,
  botUserId,
  adapter,
}: {
  message: Message;
  botUserId: string;
  adapter: DiscordAdapterContext;
}): Promise<boolean> {
  if (!message.guild) return true;
  // A reply that pings the bot lists it among the mentions, so it arrives with its content too.
  if (message.mentions.users.has(botUserId)) return true;
  // Without Message Content every other guild message arrives empty: nothing to answer.
  if (!adapter.canReadMessageContent) return false;
  if (message.mentions.repliedUser?.id === botUserId) return true;
  const channel = message.channel;
  // /config's reply mode for the channel wins over DISCORD_REPLY_ALL_CHANNEL_IDS.
  const place = placeOfConversation(conversationKeyOfMessage(message));
  const { replyMode } = await adapter.services.places
    .settingsAt(place)
    .catch(() => ({ replyMode: undefined }));
  if (replyMode === 'all') return true;
  const channelIds = [channel.id, 'parentId' in channel ? channel.parentId : null];
  const isReplyAllChannel = channelIds.some((id) => id && adapter.discord.replyAllChannelIds.includes(id));
  if (isReplyAllChannel && replyMode !== 'mentions') return true;
  // A thread the bot has answered in (or is answering in right now) is a conversation it is part of.
  if (channel.isThread()) {
    const key = conversationKeyOfMessage(message);
    return adapter.services.engine.isBusy(key) || (await adapter.services.history.load(key)).length > 0;
  }
  return false;
}
