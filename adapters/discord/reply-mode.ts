import type { Message } from 'discord.js';
import type { PlaceSettings, ReplyMode } from '../../src/administration/place-settings.ts';
import { placeOfConversation } from '../../src/conversation/turn.ts';
import type { DiscordAdapterContext } from './adapter-context.ts';
import { conversationKeyOfMessage } from './message-turn.ts';

/**
 * How a channel answers, most specific first: /config's reply mode for the channel (or server),
 * then DISCORD_REPLY_ALL_CHANNEL_IDS, then DISCORD_REPLY_MODE. A thread takes its parent channel's.
 */
export async function replyModeOf({
  message,
  adapter,
  settings,
}: {
  message: Pick<Message, 'channel' | 'channelId' | 'guildId'>;
  adapter: DiscordAdapterContext;
  /** The place's settings as the turn already read them; absent, they are read here. */
  settings?: Pick<PlaceSettings, 'replyMode'> | undefined;
}): Promise<ReplyMode> {
  const place = placeOfConversation(conversationKeyOfMessage(message));
  const { replyMode } =
    settings ?? (await adapter.services.places.settingsAt(place).catch(() => ({ replyMode: undefined })));
  if (replyMode) return replyMode;
  const channel = message.channel;
  const channelIds = [channel.id, 'parentId' in channel ? channel.parentId : null];
  if (channelIds.some((id) => id && adapter.discord.replyAllChannelIds.includes(id))) return 'all';
  return adapter.discord.replyMode;
}
