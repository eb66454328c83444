import type { Message } from 'discord.js';
import type { Logger } from '../../src/log.ts';
import { noPings } from './channel-surface.ts';

/** One notice per person and channel in this window: a second mention soon after gets none. */
const noticeIntervalMs = 60 * 60 * 1000;

/**
 * Someone asked parley in a channel where it may not post. Silence would look like a dead bot, and
 * the channel is closed to it, so the person hears why in a DM, at most once an hour per channel.
 */
export function createUnableToPostNotice({ logger }: { logger: Logger }) {
  const lastNoticeAtMs = new Map<string, number>();
  return async function tellUnableToPost(message: Message, permission: string): Promise<void> {
    const key = `${message.author.id}:${message.channelId}`;
    const nowMs = Date.now();
    const last = lastNoticeAtMs.get(key);
    if (last !== undefined && nowMs - last < noticeIntervalMs) return;
    lastNoticeAtMs.set(key, nowMs);
    if (lastNoticeAtMs.size > 10_000) lastNoticeAtMs.clear();
    const channelName =
      'name' in message.channel && message.channel.name ? `#${message.channel.name}` : 'that channel';
    try {
      await message.author.send({
        content: `I saw your message in ${channelName}, but I may not post there (I need the **${permission}** permission). Ask a server admin to give it to me, or talk to me here.`,
        allowedMentions: noPings,
      });
    } catch (error) {
      // DMs closed too: the log is all that is left.
      logger.warn(
        { err: error, channelId: message.channelId },
        'could not tell the person why parley did not answer',
      );
    }
  };
}
