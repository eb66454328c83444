import {
  ComponentType,
  type Message,
  type MessageCreateOptions,
  MessageFlags,
  type SendableChannels,
  type User,
} from 'discord.js';
import { truncateText } from '../../src/delivery/card.ts';
import type { Surface } from '../../src/delivery/surface.ts';
import { createChannelSurface } from './channel-surface.ts';
import { discordLimits } from './discord-limits.ts';
import type { DiscordOutbound } from './discord-outbound.ts';

/**
 * Where an interaction's answers go once its token can no longer carry them (interaction tokens
 * work for 15 minutes): public answers into the channel, addressed to the person, and private ones
 * to them as a direct message, since nothing else can be private without the token.
 */
export interface ChannelFallback {
  /** Streamed replies (/chat, Regenerate) continue as ordinary channel messages. */
  readonly surface: Surface;
  /**
   * `isContinuation`: an earlier piece of the same answer is already in the channel, which named the
   * person; this one follows it without pinging them again.
   */
  send(
    payload: MessageCreateOptions,
    options: { isPrivate: boolean; isContinuation?: boolean },
  ): Promise<Message<boolean>>;
}

/**
 * The most characters naming the person takes in front of a public answer (`<@id> `): a user id is a
 * snowflake, a 64-bit number of at most 20 digits (reference.mdx, "Snowflakes").
 */
export const personMentionLength = '<@> '.length + 20;

export function createChannelFallback({
  channel,
  user,
  outbound,
  botUserId,
}: {
  channel: SendableChannels;
  user: User;
  outbound: DiscordOutbound;
  botUserId: string;
}): ChannelFallback {
  return {
    surface: createChannelSurface({ channel, outbound, botUserId }),
    async send(payload, { isPrivate, isContinuation = false }): Promise<Message<boolean>> {
      if (isPrivate) return user.send(payload);
      // The person waited a long time for this: it names (and pings) them alone, once an answer.
      const isComponents =
        typeof payload.flags === 'number' && (payload.flags & MessageFlags.IsComponentsV2) !== 0;
      const named = isContinuation
        ? payload
        : isComponents
          ? // A components message takes no content: the name is a text display on top, which pings
            // by the same allowed_mentions (components/reference.mdx, "Text Display").
            {
              ...payload,
              components: [
                { type: ComponentType.TextDisplay, content: `<@${user.id}>` },
                ...(payload.components ?? []),
              ],
              allowedMentions: { parse: [], users: [user.id] },
            }
          : {
              ...payload,
              content: truncateText(
                `<@${user.id}> ${payload.content ?? ''}`.trim(),
                discordLimits.messageLength,
              ),
              allowedMentions: { parse: [], users: [user.id] },
            };
      return outbound.schedule<Message<boolean>>({
        priority: 'first-post',
        target: { kind: 'create', channelId: channel.id },
        run: () => channel.send(named),
      });
    },
  };
}
