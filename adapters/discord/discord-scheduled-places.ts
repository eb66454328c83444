import type { Client } from 'discord.js';
import type { CommandServices } from '../../commands/define-command.ts';
import type { ScheduledPlaces } from '../../commands/scheduled-places.ts';
import { createSurfaceResponder } from '../../commands/surface-responder.ts';
import { conversationKeyOf } from '../../src/conversation/turn.ts';
import { createOrphanedReplySurface } from './orphaned-reply-surface.ts';
import { readChannelHistory } from './read-channel-history.ts';

/** The channel (or thread: a channel of its own on Discord) a conversation key names. */
function channelIdOf(conversationKey: string): string | undefined {
  const [, , channel, thread] = conversationKey.split(':');
  return thread ?? channel;
}

/**
 * Discord places for scheduled runs: a channel or thread is reached over REST by its id (the same
 * surface that finishes a dead process's replies: post, edit, buttons), and a person's DM is opened
 * with "Create DM" (discord-api-docs resources/user, Create DM), which returns the existing one.
 */
export function createDiscordScheduledPlaces({ client }: { client: Client }): ScheduledPlaces {
  const responderFor = (channelId: string) =>
    createSurfaceResponder(
      createOrphanedReplySurface({ client, address: { platform: 'discord', channelId }, messages: [] }),
    );
  return {
    platform: 'discord',
    async responderIn(conversationKey) {
      const channelId = channelIdOf(conversationKey);
      return channelId === undefined ? undefined : responderFor(channelId);
    },
    async directMessageWith(userId) {
      const channel = await client.users.createDM(userId);
      return {
        conversationKey: conversationKeyOf({ platform: 'discord', workspace: 'dm', channel: channel.id }),
        responder: responderFor(channel.id),
      };
    },
    async readRecentMessages(conversationKey, limit) {
      const channelId = channelIdOf(conversationKey);
      const channel = channelId === undefined ? null : await client.channels.fetch(channelId);
      if (channel === null || !channel.isSendable() || client.user === null) return [];
      return readChannelHistory({ channel, limit, botUserId: client.user.id });
    },
  };
}

/** Registers Discord's places with the scheduler, where the process runs one; returns the undo. */
export function registerDiscordPlaces({
  client,
  services,
}: {
  client: Client;
  services: CommandServices;
}): () => void {
  return services.scheduling?.places.register(createDiscordScheduledPlaces({ client })) ?? (() => {});
}
