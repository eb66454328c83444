import type { Message, MessageCreateOptions, SendableChannels, User } from 'discord.js';
import { truncateText } from '../../src/delivery/card.ts';
import type { RequestScheduler } from '../../src/delivery/request-scheduler.ts';
import type { Surface } from '../../src/delivery/surface.ts';
import { channelBucket, createChannelSurface } from './channel-surface.ts';
import { discordLimits } from './discord-limits.ts';

/**
 * Where an interaction's answers go once its token can no longer carry them (interaction tokens
 * work for 15 minutes): public answers into the channel, addressed to the person, and private ones
 * to them as a direct message, since nothing else can be private without the token.
 */
export interface ChannelFallback {
  /** Streamed replies (/chat, Regenerate) continue as ordinary channel messages. */
  readonly surface: Surface;
  send(payload: MessageCreateOptions, options: { isPrivate: boolean }): Promise<Message<boolean>>;
}

export function createChannelFallback({
  channel,
  user,
  scheduler,
  botUserId,
}: {
  channel: SendableChannels;
  user: User;
  scheduler: RequestScheduler;
  botUserId: string;
}): ChannelFallback {
  return {
    surface: createChannelSurface({ channel, scheduler, botUserId }),
    async send(payload, { isPrivate }): Promise<Message<boolean>> {
      if (isPrivate) return user.send(payload);
      // The person waited a long time for this: it names (and pings) them alone.
      return scheduler.schedule<Message<boolean>>({
        priority: 'post',
        bucket: channelBucket('create', channel.id),
        run: () =>
          channel.send({
            ...payload,
            content: truncateText(
              `<@${user.id}> ${payload.content ?? ''}`.trim(),
              discordLimits.messageLength,
            ),
            allowedMentions: { parse: [], users: [user.id] },
          }),
      });
    },
  };
}
