import type { Client } from 'discord.js';
import type { CommandServices } from '../../commands/define-command.ts';
import type { ScheduledPlaces } from '../../commands/scheduled-places.ts';
import { createSurfaceResponder } from '../../commands/surface-responder.ts';
import { conversationKeyOf } from '../../src/conversation/turn.ts';
import { createChannelSurface } from './channel-surface.ts';
import { discordActorNow } from './discord-actor-now.ts';
import type { DiscordOutbound } from './discord-outbound.ts';
import { readChannelHistory } from './read-channel-history.ts';

/** The channel (or thread: a channel of its own on Discord) a conversation key names. */
function channelIdOf(conversationKey: string): string | undefined {
  const [, , channel, thread] = conversationKey.split(':');
  return thread ?? channel;
}

/**
 * Discord places for scheduled runs. A channel or thread is fetched by its id and answered through
 * the same surface as a live reply (the bot's outbound queue with the channel's create and edit
 * buckets, edits paced as for any streaming reply, buttons as components); a person's DM is opened
 * with "Create DM" (discord-api-docs resources/user, Create DM), which returns the existing one.
 */
export function createDiscordScheduledPlaces({
  client,
  outbound,
}: {
  client: Client;
  outbound: DiscordOutbound;
}): ScheduledPlaces {
  const responderIn = async (channelId: string) => {
    const channel = await client.channels.fetch(channelId).catch(() => null);
    if (channel === null || !channel.isSendable() || client.user === null) return undefined;
    return createSurfaceResponder(createChannelSurface({ channel, outbound, botUserId: client.user.id }));
  };
  return {
    platform: 'discord',
    async responderIn(conversationKey) {
      const channelId = channelIdOf(conversationKey);
      return channelId === undefined ? undefined : responderIn(channelId);
    },
    async directMessageWith(userId) {
      const channel = await client.users.createDM(userId);
      const responder = await responderIn(channel.id);
      if (responder === undefined) return undefined;
      return {
        conversationKey: conversationKeyOf({ platform: 'discord', workspace: 'dm', channel: channel.id }),
        responder,
      };
    },
    actorNow: (request) => discordActorNow({ client, ...request }),
    // The guilds the gateway announced (GUILD_CREATE) and has not taken back.
    isPresentIn: (workspace) => client.guilds.cache.has(workspace),
    async readRecentMessages(conversationKey, limit) {
      const channelId = channelIdOf(conversationKey);
      const channel = channelId === undefined ? null : await client.channels.fetch(channelId);
      if (channel === null || !channel.isSendable() || client.user === null) return [];
      return readChannelHistory({ channel, limit, botUserId: client.user.id });
    },
  };
}

/** Registers Discord's places (scheduled runs, the console, connectors); returns the undo. */
export function registerDiscordPlaces({
  client,
  outbound,
  services,
}: {
  client: Client;
  outbound: DiscordOutbound;
  services: CommandServices;
}): () => void {
  return services.platformPlaces.register(createDiscordScheduledPlaces({ client, outbound }));
}
