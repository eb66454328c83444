import type { App } from '@slack/bolt';
import type { CommandServices } from '../../commands/define-command.ts';
import type { ScheduledPlaces } from '../../commands/scheduled-places.ts';
import { createSurfaceResponder } from '../../commands/surface-responder.ts';
import { conversationKeyOf, placeOfConversation } from '../../src/conversation/turn.ts';
import { createOrphanedReplySurface } from './orphaned-reply-surface.ts';
import type { SlackOutbound } from './slack-outbound.ts';

/**
 * Slack places for scheduled runs: a channel (or a thread, by its `ts`) is reached with
 * chat.postMessage / chat.update through the bot's outbound queue, as the surface that finishes a
 * dead process's replies does; a person's DM with the app is opened by conversations.open, which
 * returns the existing one (docs.slack.dev reference/methods/conversations.open).
 */
export function createSlackScheduledPlaces({
  app,
  outbound,
}: {
  app: App;
  outbound: SlackOutbound;
}): ScheduledPlaces {
  const responderFor = (teamId: string, channel: string, threadTs?: string) =>
    createSurfaceResponder(
      createOrphanedReplySurface({
        client: app.client,
        outbound,
        address: { platform: 'slack', teamId, channel, ...(threadTs === undefined ? {} : { threadTs }) },
        messages: [],
      }),
    );
  return {
    platform: 'slack',
    async responderIn(conversationKey) {
      const [, teamId, channel, threadTs] = conversationKey.split(':');
      if (teamId === undefined || channel === undefined) return undefined;
      return responderFor(teamId, channel, threadTs);
    },
    async directMessageWith(userId, madeIn) {
      const { workspace: teamId } = placeOfConversation(madeIn);
      const opened = await app.client.conversations.open({ users: userId });
      const channel = opened.channel?.id;
      if (channel === undefined) return undefined;
      return {
        conversationKey: conversationKeyOf({ platform: 'slack', workspace: teamId, channel }),
        responder: responderFor(teamId, channel),
      };
    },
    // Scheduled commands read no Slack history yet (the user directory that names authors lives in
    // the adapter's event context); /summarize scheduled on Slack says it found nothing to read.
    readRecentMessages: async () => [],
  };
}

/** Registers Slack's places with the scheduler, where the process runs one; returns the undo. */
export function registerSlackPlaces({
  app,
  outbound,
  services,
}: {
  app: App;
  outbound: SlackOutbound;
  services: CommandServices;
}): () => void {
  return services.scheduling?.places.register(createSlackScheduledPlaces({ app, outbound })) ?? (() => {});
}
